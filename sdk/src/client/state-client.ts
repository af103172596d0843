/**
 * `context.state`: the `state::*` functions (workers/state/README.md), called through the engine like any other
 * function.
 */
import type { StateClient, TriggerRequest } from '../types.js';

interface Caller {
  trigger<T = unknown>(request: TriggerRequest): Promise<T>;
}

export class EngineStateClient implements StateClient {
  constructor(private readonly caller: Caller) {}

  get<T = unknown>(scope: string, key: string): Promise<T | undefined> {
    return this.caller.trigger<T | undefined>({ function_id: 'state::get', payload: { scope, key } });
  }

  set<T = unknown>(scope: string, key: string, value: T): Promise<{ old_value: unknown; new_value: T }> {
    return this.caller.trigger({ function_id: 'state::set', payload: { scope, key, value } });
  }

  /** Resolves the value the key held before (undefined when there was none). */
  delete(scope: string, key: string): Promise<unknown> {
    return this.caller.trigger({ function_id: 'state::delete', payload: { scope, key } });
  }

  async list<T = unknown>(scope: string): Promise<T[]> {
    const values = await this.caller.trigger<T[] | undefined>({ function_id: 'state::list', payload: { scope } });
    return Array.isArray(values) ? values : [];
  }
}
