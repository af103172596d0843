/**
 * `svc trigger <function_id> [key=value …] [--json '{…}'] [--address host] [--port n] [--timeout-ms n]`: connects
 * as an ordinary SDK worker, invokes synchronously, prints the JSON result on stdout. On an error prints
 * `{code, message}` on stderr and exits 1 (3 on a timeout, 4 when the engine cannot be reached). An unknown
 * function id gets the closest registered ids ("did you mean"). `--address` may list several engines of one
 * cluster (`ws://a:49134,ws://b:49134`): the first one that answers is used.
 */
import { ClientErrorCode, ErrorCode, InvocationError, type SvcClient } from '@svc/sdk/core';
import { EngineUnreachable, printError, withEngine } from '../engine-session.js';
import { CliErrorCode } from '../error-codes.js';
import { EXIT } from '../exit-codes.js';
import { closest } from '../suggest.js';

export interface TriggerArgs {
  functionId: string;
  payload: unknown;
  url: string;
  timeoutMs: number;
}

export async function triggerCommand(args: TriggerArgs): Promise<number> {
  try {
    const result = await withEngine(args.url, args.timeoutMs, (client) => invoke(client, args));
    process.stdout.write(`${JSON.stringify(result ?? null, null, 2)}\n`);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof EngineUnreachable) {
      printError(err.code, err.message);
      return EXIT.unreachable;
    }
    if (err instanceof InvocationError) {
      printError(err.code, err.detail, err.stacktrace);
      return err.code === ClientErrorCode.Timeout || err.code === ErrorCode.InvocationTimeout
        ? EXIT.timeout
        : EXIT.error;
    }
    printError(CliErrorCode.TriggerFailed, (err as Error).message);
    return EXIT.error;
  }
}

async function invoke(client: SvcClient, args: TriggerArgs): Promise<unknown> {
  try {
    return await client.trigger({ function_id: args.functionId, payload: args.payload, timeoutMs: args.timeoutMs });
  } catch (err) {
    if (!(err instanceof InvocationError) || err.code !== ErrorCode.FunctionNotFound) throw err;
    const hint = await suggestion(client, args.functionId);
    if (!hint) throw err;
    throw new InvocationError({ code: err.code, message: `${err.detail}; ${hint}` });
  }
}

async function suggestion(client: SvcClient, functionId: string): Promise<string | undefined> {
  try {
    const answer = await client.trigger({ function_id: 'engine::functions::list', payload: {}, timeoutMs: 5000 });
    const list = (answer as { functions?: { function_id?: unknown }[] } | null)?.functions ?? [];
    const ids = list.map((f) => f.function_id).filter((id): id is string => typeof id === 'string');
    const near = closest(functionId, ids);
    if (near.length === 0) return undefined;
    return `did you mean ${near.map((id) => `'${id}'`).join(' or ')}? (svc functions lists them all)`;
  } catch {
    return undefined;
  }
}
