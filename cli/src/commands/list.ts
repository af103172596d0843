/**
 * `svc functions`, `svc workers`, `svc triggers`: what the engine knows, as a table (JSON with `--json`). They
 * call the engine's own introspection functions, so any SDK client sees the same.
 */
import type { SvcClient } from '@svc/sdk';
import { EngineUnreachable, printError, withEngine } from '../engine-session.js';
import { CliErrorCode } from '../error-codes.js';
import { EXIT } from '../exit-codes.js';
import { formatTable } from '../table.js';
import { textOf } from '@svc/sdk/core';

type Row = Record<string, unknown>;

interface Listing {
  functionId: string;
  /** The key of the list in the answer. */
  key: string;
  columns: string[];
  cells: (row: Row) => string[];
}

const text = (value: unknown): string => (value === undefined || value === null ? '' : textOf(value));

export const LISTINGS = {
  functions: {
    functionId: 'engine::functions::list',
    key: 'functions',
    columns: ['function', 'worker', 'replicas', 'description'],
    cells: (r) => [text(r['function_id']), text(r['worker_name']), text(r['replicas']), text(r['description'])],
  },
  workers: {
    functionId: 'engine::workers::list',
    key: 'workers',
    columns: ['name', 'id', 'runtime', 'status', 'functions', 'active'],
    cells: (r) => [
      text(r['name']),
      text(r['id']),
      text(r['runtime']),
      text(r['status']),
      text(r['function_count']),
      text(r['active_invocations']),
    ],
  },
  triggers: {
    functionId: 'engine::registered-triggers::list',
    key: 'registered_triggers',
    columns: ['id', 'type', 'function', 'worker', 'config'],
    cells: (r) => [
      text(r['id']),
      text(r['trigger_type']),
      text(r['function_id']),
      text(r['worker_name']),
      text(r['config_summary']),
    ],
  },
} satisfies Record<string, Listing>;

export type ListingName = keyof typeof LISTINGS;

export interface ListArgs {
  what: ListingName;
  url: string;
  json: boolean;
  /** Include the engine's own (`engine::*`) entries. */
  all: boolean;
}

export async function listCommand(args: ListArgs): Promise<number> {
  const listing: Listing = LISTINGS[args.what];
  try {
    const answer = await withEngine(args.url, 10000, (client: SvcClient) =>
      client.trigger({ function_id: listing.functionId, payload: args.all ? { include_internal: true } : {} }),
    );
    const rows = (answer as Record<string, unknown> | null)?.[listing.key];
    const list = Array.isArray(rows) ? (rows as Row[]) : [];
    if (args.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    else process.stdout.write(formatTable(listing.columns, list.map(listing.cells), process.stdout.isTTY === true));
    return EXIT.ok;
  } catch (err) {
    if (err instanceof EngineUnreachable) {
      printError(err.code, err.message);
      return EXIT.unreachable;
    }
    printError(CliErrorCode.EngineError, (err as Error).message);
    return EXIT.error;
  }
}
