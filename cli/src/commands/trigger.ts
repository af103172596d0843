/**
 * `svc trigger <function_id> [key=value …] [--json '{…}'] [--address host] [--port n] [--timeout-ms n]`: connects
 * as an ordinary SDK worker, invokes synchronously, prints the JSON result on stdout. On an error prints
 * `{code, message}` on stderr and exits 1 (3 on a timeout, 4 when the engine cannot be reached).
 */
import pino from 'pino';
import { InvocationError, registerWorker } from '@svc/sdk';
import { EXIT } from '../exit-codes.js';

export interface TriggerArgs {
  functionId: string;
  payload: unknown;
  address: string;
  port: number;
  timeoutMs: number;
}

/** How long `svc trigger` waits to reach the engine before giving up. */
const CONNECT_TIMEOUT_MS = 5000;

export async function triggerCommand(args: TriggerArgs): Promise<number> {
  const url =
    args.address.startsWith('ws://') || args.address.startsWith('wss://')
      ? args.address
      : `ws://${args.address}:${args.port}`;
  let gaveUp: (() => void) | undefined;
  const unreachable = new Promise<false>((resolve) => {
    gaveUp = () => resolve(false);
  });
  const client = registerWorker(url, {
    workerName: 'svc-cli',
    logger: pino({ level: 'silent' }),
    invocationTimeoutMs: args.timeoutMs,
    reconnectionConfig: { maxRetries: 0 },
    onConnectionStateChange: (state) => {
      if (!state.connected && !state.willReconnect) gaveUp?.();
    },
  });
  let connectTimer: NodeJS.Timeout | undefined;
  try {
    const connected = await Promise.race([
      client.ready().then(() => true),
      unreachable,
      new Promise<false>((resolve) => {
        connectTimer = setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(connectTimer);
    if (!connected) {
      printError('engine_unreachable', `cannot reach the engine at ${url}; is svc running? (check --address/--port)`);
      return EXIT.unreachable;
    }
    const result = await client.trigger({
      function_id: args.functionId,
      payload: args.payload,
      timeoutMs: args.timeoutMs,
    });
    process.stdout.write(`${JSON.stringify(result ?? null, null, 2)}\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof InvocationError) {
      const prefix = `${err.code}: `;
      const message = err.message.startsWith(prefix) ? err.message.slice(prefix.length) : err.message;
      printError(err.code, message, err.stacktrace);
      return err.code === 'TIMEOUT' || err.code === 'invocation_timeout' ? EXIT.timeout : EXIT.error;
    }
    printError('trigger_failed', (err as Error).message);
    return EXIT.error;
  } finally {
    clearTimeout(connectTimer);
    await Promise.race([client.shutdown().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}

function printError(code: string, message: string, stacktrace?: string): void {
  const body: Record<string, string> = { code, message };
  if (stacktrace) body['stacktrace'] = stacktrace;
  process.stderr.write(`${JSON.stringify(body)}\n`);
}
