/**
 * Change notifications: a worker connected, disconnected or reported metadata; the set of functions or trigger
 * registrations changed. Delivered to lifecycle observers (`Hooks.observe`).
 */
export type WorkerEventName = 'worker_connected' | 'worker_disconnected' | 'worker_metadata_updated';

export type TopologyEvent =
  { kind: 'worker'; event: WorkerEventName; workerId: string } | { kind: 'functions' } | { kind: 'triggers' };

export type TopologyListener = (event: TopologyEvent) => void;
