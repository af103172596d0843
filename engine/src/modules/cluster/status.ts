/** `engine::cluster::status`: what this engine knows of its cluster right now (docs/cluster.md). */
import type { Peer } from './peers.js';

export const CLUSTER_STATUS_FUNCTION = 'engine::cluster::status';

export interface StatusInput {
  engineId: string;
  cluster: string;
  nats: readonly string[];
  connected: boolean;
  outageSinceMs: number | undefined;
  peers: Peer[];
  inFlight: number;
  heartbeatTimeoutMs: number;
}

export function statusOf(s: StatusInput): unknown {
  const now = Date.now();
  return {
    engine_id: s.engineId,
    cluster: s.cluster,
    nats: {
      servers: s.nats,
      connected: s.connected,
      outage_ms: s.outageSinceMs === undefined ? 0 : now - s.outageSinceMs,
    },
    /** `degraded`: this engine cannot reach NATS, so it routes to its own workers only. */
    state: s.connected ? 'ok' : 'degraded',
    heartbeat_timeout_ms: s.heartbeatTimeoutMs,
    remote_calls_in_flight: s.inFlight,
    engines: s.peers.map((p) => ({
      engine_id: p.id,
      url: p.url,
      last_seen_ms_ago: now - p.lastSeenMs,
      functions: p.announcement.functions.length,
      workers: p.announcement.workers.length,
    })),
  };
}
