/**
 * A short-lived connection to the engine for one command: connects as an ordinary SDK worker (`svc-cli`), gives
 * up after `CONNECT_TIMEOUT_MS` (or at once when the connection is refused), and always shuts the client down.
 */
import pino from 'pino';
import { registerWorker, type SvcClient } from '@svc/sdk';
import { CliErrorCode } from './error-codes.js';

/** How long a command waits to reach the engine before giving up. */
const CONNECT_TIMEOUT_MS = 5000;

export class EngineUnreachable extends Error {
  override readonly name = 'EngineUnreachable';
  readonly code = CliErrorCode.EngineUnreachable;
}

export async function withEngine<T>(
  url: string,
  invocationTimeoutMs: number,
  work: (client: SvcClient) => Promise<T>,
): Promise<T> {
  let gaveUp: (() => void) | undefined;
  const unreachable = new Promise<false>((resolve) => {
    gaveUp = () => resolve(false);
  });
  const client = registerWorker(url, {
    workerName: 'svc-cli',
    logger: pino({ level: 'silent' }),
    invocationTimeoutMs,
    reconnectionConfig: { maxRetries: 0 },
    onConnectionStateChange: (state) => {
      if (!state.connected && !state.willReconnect) gaveUp?.();
    },
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const connected = await Promise.race([
      client.ready().then(() => true),
      unreachable,
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!connected) {
      throw new EngineUnreachable(
        `cannot reach the engine at ${url}; is svc running? (check --address/--port, SVC_URL or SVC_PORT)`,
      );
    }
    return await work(client);
  } finally {
    clearTimeout(timer);
    await Promise.race([client.shutdown().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}

/** `{code, message}` on stderr, the shape every command uses for its errors. */
export function printError(code: string, message: string, stacktrace?: string): void {
  const body: Record<string, string> = { code, message };
  if (stacktrace) body['stacktrace'] = stacktrace;
  process.stderr.write(`${JSON.stringify(body)}\n`);
}
