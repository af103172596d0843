/**
 * `svc health`: asks the engine `engine::health::check`. Exit 0 when it answers healthy, 1 when it answers
 * anything else, 4 when it cannot be reached: a container healthcheck or a script can use the exit code alone.
 */
import { EngineUnreachable, printError, withEngine } from '../engine-session.js';
import { CliErrorCode } from '../error-codes.js';
import { EXIT } from '../exit-codes.js';
import { textOf } from '@svc/sdk/core';

export interface HealthArgs {
  url: string;
  json: boolean;
  timeoutMs: number;
}

export async function healthCommand(args: HealthArgs): Promise<number> {
  let answer: Record<string, unknown>;
  try {
    const result = await withEngine(args.url, args.timeoutMs, (client) =>
      client.trigger({ function_id: 'engine::health::check', payload: {}, timeoutMs: args.timeoutMs }),
    );
    answer = result && typeof result === 'object' ? (result as Record<string, unknown>) : {};
  } catch (err) {
    const code = err instanceof EngineUnreachable ? err.code : CliErrorCode.EngineError;
    if (args.json) process.stdout.write(`${JSON.stringify({ status: 'unreachable', url: args.url })}\n`);
    printError(code, (err as Error).message);
    return err instanceof EngineUnreachable ? EXIT.unreachable : EXIT.error;
  }
  const healthy = answer['status'] === 'healthy';
  if (args.json) process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
  else process.stdout.write(`${describe(answer, args.url)}\n`);
  return healthy ? EXIT.ok : EXIT.error;
}

function describe(answer: Record<string, unknown>, url: string): string {
  const uptime = typeof answer['uptime_ms'] === 'number' ? `, up ${Math.round(answer['uptime_ms'] / 1000)} s` : '';
  const version = typeof answer['version'] === 'string' ? `, version ${answer['version']}` : '';
  return `${textOf(answer['status'] ?? 'unknown')}: engine at ${url}${version}${uptime}`;
}
