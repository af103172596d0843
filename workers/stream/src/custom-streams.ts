import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { SvcClient } from '@svc/sdk';

export type CustomOp = 'get' | 'set' | 'delete' | 'list' | 'list_groups' | 'update';

const CUSTOM_ID = /^stream::(get|set|delete|list|list_groups|update)\((.+)\)$/;

/** The function id of a custom implementation, as `createStream` in the SDKs registers it. */
export function customFunctionId(op: CustomOp, stream: string): string {
  return `stream::${op}(${stream})`;
}

function functionIds(payload: unknown): string[] {
  const list = (payload as { functions?: unknown } | null)?.functions;
  if (!Array.isArray(list)) return [];
  return list
    .map((f) => (f as { function_id?: unknown } | null)?.function_id)
    .filter((id): id is string => typeof id === 'string');
}

/**
 * Which streams have a custom implementation: a function named `stream::<op>(<stream_name>)` registered by any
 * worker takes precedence over the adapter for that op and stream (docs/protocol.md §4). Kept current from
 * `engine::functions::list` at start and the `engine::functions-available` trigger afterwards.
 */
export class CustomStreams {
  private ids = new Set<string>();

  constructor(
    private readonly client: SvcClient,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    // Unique per process: every svc-stream replica must hear about every change.
    const listener = `svc-stream::functions_changed::${randomUUID()}`;
    this.client.registerFunction(listener, (payload: unknown) => void this.replace(functionIds(payload)), {
      description: 'svc-stream: tracks custom stream implementations',
      metadata: { internal: true },
    });
    this.client.registerTrigger({ type: 'engine::functions-available', function_id: listener, config: {} });
    try {
      const listed = await this.client.trigger({
        function_id: 'engine::functions::list',
        payload: { prefix: 'stream::' },
        timeoutMs: 5000,
      });
      this.replace(functionIds(listed));
    } catch (err) {
      this.logger.warn({ err }, 'could not list functions; custom stream implementations are seen once they change');
    }
  }

  private replace(ids: string[]): void {
    this.ids = new Set(ids.filter((id) => CUSTOM_ID.test(id)));
  }

  has(op: CustomOp, stream: string): boolean {
    return this.ids.size > 0 && this.ids.has(customFunctionId(op, stream));
  }

  call<T>(op: CustomOp, stream: string, input: unknown): Promise<T> {
    return this.client.trigger<T>({ function_id: customFunctionId(op, stream), payload: input });
  }
}
