/**
 * `svc worker <name> [--url ws://engine:49134] [-c file]`: runs one capability worker (svc-http, svc-state,
 * svc-queue, svc-cron, svc-stream) in this process, connected to the engine over the network, exactly as the engine's
 * exec module would spawn it, but supervised by whoever started it (docker compose, systemd, Kubernetes). Its config
 * comes from `--config <file>` or `SVC_MODULE_CONFIG` (JSON); the engine's address from `--url` or `SVC_URL`.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CAPABILITY_WORKERS, type CapabilityWorker } from '@svc/config';
import { UsageError } from '../exit-codes.js';

export interface WorkerArgs {
  name: string;
  url: string | undefined;
  configPath: string | undefined;
}

export const WORKER_HELP = `Usage: svc worker <name> [--url ws://host:49134] [-c <file>]

Runs one capability worker as its own process, connected to an engine over the network (one container per worker
under docker compose, scaled with --scale). The engine's config should not list that worker (nothing supervises it
twice). Stops on SIGTERM / Ctrl-C after finishing what it is doing.

Names: ${CAPABILITY_WORKERS.map((w) => w.name).join(', ')} (or ${CAPABILITY_WORKERS.map((w) => w.dir).join(', ')})

Options:
  --url <ws://host:port>  the engine (default: env SVC_URL, else ws://localhost:49134)
  -c, --config <file>     the worker's config (YAML or JSON, \${VAR} substituted); default: env SVC_MODULE_CONFIG
                          (JSON), else every key at its default
  -h, --help              show this help

Example:
  SVC_MODULE_CONFIG='{"adapter":{"class":"modules::state::adapters::KvserverAdapter","config":{"kvserver_url":"redis://redis:6379"}}}' \\
    svc worker svc-state --url ws://engine:49134
`;

export function findWorker(name: string): CapabilityWorker {
  const worker = CAPABILITY_WORKERS.find((w) => w.name === name || w.dir === name);
  if (worker === undefined) {
    const names = CAPABILITY_WORKERS.map((w) => w.name).join(', ');
    throw new UsageError(`unknown worker "${name}"; expected one of ${names}`);
  }
  return worker;
}

/** `workers/<dir>/dist/main.js` beside this CLI (cli/dist/commands → the repository root). */
function workerMain(worker: CapabilityWorker): string {
  return fileURLToPath(new URL(`../../../workers/${worker.dir}/dist/main.js`, import.meta.url));
}

export async function workerCommand(args: WorkerArgs): Promise<number | undefined> {
  const worker = findWorker(args.name);
  const main = workerMain(worker);
  if (!existsSync(main)) {
    process.stderr.write(`svc: ${worker.name} is not built (looked for ${main}); run npm run build\n`);
    return 1;
  }
  // The worker reads its engine address and config the way it does when the engine spawns it.
  if (args.url !== undefined) process.env.SVC_URL = args.url;
  process.argv = [process.execPath, main, ...(args.configPath !== undefined ? ['--config', args.configPath] : [])];
  await import(pathToFileURL(main).href);
  return undefined; // the worker runs until a signal stops it
}
