/**
 * The connection of a session with a `function_registration_prefix`: its functions are registered as
 * `<prefix>::<id>`, but the worker knows them by `<id>`, so calls sent to it lose the prefix again. Frames to it are
 * always re-encoded (no raw relay), which only such sessions pay for.
 */
import type { EngineToWorker } from '@svc/sdk';
import type { Connection } from '../../core/connection.js';

export class PrefixedConnection implements Connection {
  private readonly prefix: string;

  constructor(
    private readonly inner: Connection,
    prefix: string,
  ) {
    this.prefix = `${prefix}::`;
  }

  get features(): ReadonlySet<string> {
    return this.inner.features;
  }
  get sharesObjects(): boolean {
    return this.inner.sharesObjects;
  }
  get kind(): 'ws' | 'in-process' {
    return this.inner.kind;
  }
  get remoteAddress(): string | undefined {
    return this.inner.remoteAddress;
  }

  send(message: EngineToWorker): boolean {
    if (message.type === 'invokefunction' && message.function_id.startsWith(this.prefix)) {
      return this.inner.send({ ...message, function_id: message.function_id.slice(this.prefix.length) });
    }
    return this.inner.send(message);
  }

  close(code?: number, reason?: string): void {
    this.inner.close(code, reason);
  }
}
