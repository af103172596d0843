/**
 * `svc logs [--level l] [--trace-id id] [--service s] [--search text] [--limit n] [--json] [--follow]`: prints the
 * observability module's log store (`engine::logs::list`), oldest first: one human-readable line per record, or
 * one JSON object per line with `--json`. `--follow` keeps printing new records (polls every second) until
 * Ctrl-C. Exits 4 when the engine cannot be reached, 1 when the log store is not available.
 */
import pino from 'pino';
import { InvocationError, registerWorker, type SvcClient } from '@svc/sdk';
import { CliErrorCode } from '../error-codes.js';
import { EXIT } from '../exit-codes.js';

export interface LogsArgs {
  /** The engine's WebSocket URL (target.ts `engineUrl`). */
  url: string;
  level?: string;
  traceId?: string;
  service?: string;
  search?: string;
  limit: number;
  json: boolean;
  follow: boolean;
}

interface Record {
  timestamp_unix_nano: string;
  severity_text: string;
  service_name: string;
  body: unknown;
  trace_id: string | null;
  span_id: string | null;
  attributes: { [key: string]: unknown };
}

const CONNECT_TIMEOUT_MS = 5000;
const POLL_MS = 1000;

export async function logsCommand(args: LogsArgs): Promise<number> {
  const url = args.url;
  const client = registerWorker(url, {
    workerName: 'svc-cli',
    logger: pino({ level: 'silent' }),
    reconnectionConfig: { maxRetries: 0 },
  });
  try {
    if (!(await connected(client))) {
      printError(
        CliErrorCode.EngineUnreachable,
        `cannot reach the engine at ${url}; is svc running? (check --address/--port)`,
      );
      return EXIT.unreachable;
    }
    let since = 0n;
    do {
      const records = await fetchRecords(client, args);
      const fresh = records.filter((r) => BigInt(r.timestamp_unix_nano) > since);
      for (const r of fresh) process.stdout.write(`${args.json ? JSON.stringify(r) : formatRecord(r)}\n`);
      const last = fresh[fresh.length - 1];
      if (last !== undefined) since = BigInt(last.timestamp_unix_nano);
      if (args.follow) await new Promise((r) => setTimeout(r, POLL_MS));
    } while (args.follow);
    return EXIT.ok;
  } catch (err) {
    const code = err instanceof InvocationError ? err.code : CliErrorCode.LogsFailed;
    const hint = code === 'function_not_found' ? ' (is modules::observability::OtelModule enabled?)' : '';
    printError(code, `${(err as Error).message}${hint}`);
    return EXIT.error;
  } finally {
    await Promise.race([client.shutdown().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}

async function connected(client: SvcClient): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS);
  });
  try {
    return await Promise.race([client.ready().then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** The newest `limit` matching records, oldest first. */
async function fetchRecords(client: SvcClient, args: LogsArgs): Promise<Record[]> {
  const payload: { [key: string]: unknown } = { limit: args.limit };
  if (args.level !== undefined) payload['level'] = args.level;
  if (args.traceId !== undefined) payload['trace_id'] = args.traceId;
  if (args.service !== undefined) payload['service'] = args.service;
  if (args.search !== undefined) payload['search'] = args.search;
  const out = await client.trigger<{ logs: Record[] }>({ function_id: 'engine::logs::list', payload, timeoutMs: 5000 });
  return [...out.logs].reverse();
}

export function formatRecord(r: Record): string {
  const time = new Date(Number(BigInt(r.timestamp_unix_nano) / 1_000_000n)).toISOString();
  const body = typeof r.body === 'string' ? r.body : JSON.stringify(r.body);
  const trace = r.trace_id === null ? '' : ` trace=${r.trace_id}`;
  const data = r.attributes['log.data'];
  return `${time} ${r.severity_text.padEnd(5)} [${r.service_name}]${trace} ${body}${data === undefined ? '' : ` ${JSON.stringify(data)}`}`;
}

function printError(code: string, message: string): void {
  process.stderr.write(`${JSON.stringify({ code, message })}\n`);
}
