/**
 * The trigger types `engine::workers-available` and `engine::functions-available`: fired on every change, with no
 * polling delay. Worker events fire one by one; bursts of function changes (a worker registering 100 functions)
 * coalesce into one event per turn of the event loop, carrying the current list.
 */
import type { Logger } from 'pino';
import { TriggerAction, type SvcClient, type TriggerBinding } from '@svc/sdk/core';
import type { EngineInternals, ModuleHooks, TopologyEvent } from '../module.js';
import { listFunctions } from './functions.js';

export const WORKERS_AVAILABLE = 'engine::workers-available';
export const FUNCTIONS_AVAILABLE = 'engine::functions-available';

export class TopologyTriggers {
  private readonly workerBindings = new Map<string, TriggerBinding>();
  private readonly functionBindings = new Map<string, TriggerBinding>();
  private functionsPending: NodeJS.Immediate | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: SvcClient,
    private readonly engine: EngineInternals,
    private readonly hooks: ModuleHooks,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.client.registerTriggerType(
      { id: WORKERS_AVAILABLE, description: 'Fires when a worker connects, disconnects or reports its metadata' },
      bindingsInto(this.workerBindings),
    );
    this.client.registerTriggerType(
      { id: FUNCTIONS_AVAILABLE, description: 'Fires when the set of registered functions changes' },
      bindingsInto(this.functionBindings),
    );
    this.unsubscribe = this.hooks.observe({ topology: (event) => this.onChange(event) });
  }

  close(): void {
    this.unsubscribe?.();
    if (this.functionsPending !== undefined) clearImmediate(this.functionsPending);
    this.functionsPending = undefined;
  }

  private onChange(event: TopologyEvent): void {
    if (event.kind === 'worker') {
      for (const binding of this.workerBindings.values()) {
        this.fire(binding, { event: event.event, worker_id: event.workerId });
      }
    } else if (event.kind === 'functions' && this.functionBindings.size > 0 && this.functionsPending === undefined) {
      this.functionsPending = setImmediate(() => this.fireFunctions());
    }
  }

  private fireFunctions(): void {
    this.functionsPending = undefined;
    const { functions } = listFunctions(this.engine, {}) as { functions: unknown[] };
    for (const binding of this.functionBindings.values()) {
      this.fire(binding, { event: 'functions_changed', functions });
    }
  }

  private fire(binding: TriggerBinding, payload: unknown): void {
    this.client.fireTrigger(binding, payload, { action: TriggerAction.Void() }).catch((err: unknown) => {
      this.logger.warn({ err, triggerId: binding.id, functionId: binding.function_id }, 'topology trigger failed');
    });
  }
}

function bindingsInto(map: Map<string, TriggerBinding>) {
  return {
    registerTrigger: (binding: TriggerBinding): void => {
      map.set(binding.id, binding);
    },
    unregisterTrigger: (binding: TriggerBinding): void => {
      map.delete(binding.id);
    },
  };
}
