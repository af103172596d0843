/**
 * The `svc` command: `svc [start] [-c file]` runs the engine; `svc trigger …` invokes a function; `svc functions`,
 * `svc workers`, `svc triggers` list what the engine knows; `svc health` checks it; `svc logs` prints the log store; `svc init <dir>` scaffolds a
 * worker project; `svc console` serves the web console. Exit codes: exit-codes.ts (and README.md "Exit codes").
 * Run by main.ts, from the bundle `npm run build` makes of it when that is current.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_INVOCATION_TIMEOUT_MS } from '@svc/sdk/core';
import { intFlag, parseArgs, stringFlag, type ParsedArgs } from './args.js';
import { EXIT, UsageError } from './exit-codes.js';
import { HELP, MAIN_HELP, TRIGGER_HELP } from './help.js';
import { buildPayload } from './payload.js';
import { TARGET_FLAGS, engineUrl } from './target.js';
import type { ConsoleOptions } from '@svc/console';

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg && typeof pkg === 'object' && 'version' in pkg ? String(pkg.version) : 'unknown';
}

const HELP_FLAG = { help: { value: false, alias: 'h' } } as const;
type Command = (argv: string[]) => Promise<number | undefined>;

async function start(argv: string[], named = false): Promise<number | undefined> {
  const { flags, positionals } = parseArgs(argv, {
    config: { value: true, alias: 'c' },
    version: { value: false, alias: 'v' },
    ...HELP_FLAG,
  });
  if (flags['version']) {
    process.stdout.write(`svc ${version()}\n`);
    return EXIT.ok;
  }
  if (flags['help']) return help(named ? 'start' : undefined);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  // Loaded only when needed, so `svc --help` and usage errors answer at once.
  const { startCommand } = await import('./commands/start.js');
  return startCommand({ configPath: stringFlag(flags, 'config') });
}

async function trigger(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    json: { value: true },
    'timeout-ms': { value: true },
    ...TARGET_FLAGS,
    ...HELP_FLAG,
  });
  const [functionId, ...pairs] = positionals;
  const url = engineUrl(flags);
  const { triggerCommand } = await import('./commands/trigger.js');
  if (flags['help']) {
    process.stdout.write(TRIGGER_HELP);
    if (!functionId) return EXIT.ok;
    // `svc trigger <function_id> --help` also describes that function, as the engine knows it.
    process.stdout.write(`\n${functionId}, as registered (engine::functions::info):\n`);
    const payload = { function_id: functionId };
    return triggerCommand({ url, functionId: 'engine::functions::info', payload, timeoutMs: 5000 });
  }
  if (!functionId) throw new UsageError('svc trigger needs a function id, e.g. svc trigger orders::create qty=1');
  const payload = buildPayload(pairs, stringFlag(flags, 'json'));
  return triggerCommand({
    url,
    functionId,
    payload,
    timeoutMs: intFlag(flags, 'timeout-ms', 1) ?? DEFAULT_INVOCATION_TIMEOUT_MS,
  });
}

function list(what: 'functions' | 'workers' | 'triggers'): Command {
  return async (argv) => {
    const spec = { json: { value: false }, all: { value: false }, ...TARGET_FLAGS, ...HELP_FLAG };
    const { flags, positionals } = parseArgs(argv, spec);
    if (flags['help']) return help(what);
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const { listCommand } = await import('./commands/list.js');
    return listCommand({ what, url: engineUrl(flags), json: flags['json'] === true, all: flags['all'] === true });
  };
}

async function health(argv: string[]): Promise<number> {
  const { flags } = parseArgs(argv, {
    json: { value: false },
    'timeout-ms': { value: true },
    ...TARGET_FLAGS,
    ...HELP_FLAG,
  });
  if (flags['help']) return help('health');
  const { healthCommand } = await import('./commands/health.js');
  const timeoutMs = intFlag(flags, 'timeout-ms', 1) ?? 5000;
  return healthCommand({ url: engineUrl(flags), json: flags['json'] === true, timeoutMs });
}

async function init(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, { name: { value: true }, force: { value: false }, ...HELP_FLAG });
  if (flags['help']) return help('init');
  const [dir, extra] = positionals;
  if (!dir) throw new UsageError('svc init needs a directory, e.g. svc init my-worker');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const { initCommand } = await import('./commands/init.js');
  return initCommand({ dir, name: stringFlag(flags, 'name'), force: flags['force'] === true });
}

async function logs(argv: string[]): Promise<number> {
  const { flags, positionals } = parseArgs(argv, {
    level: { value: true },
    'trace-id': { value: true },
    service: { value: true },
    search: { value: true },
    limit: { value: true },
    json: { value: false },
    follow: { value: false, alias: 'f' },
    ...TARGET_FLAGS,
    ...HELP_FLAG,
  });
  if (flags['help']) return help('logs');
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const { logsCommand } = await import('./commands/logs.js');
  return logsCommand({
    url: engineUrl(flags),
    level: stringFlag(flags, 'level'),
    traceId: stringFlag(flags, 'trace-id'),
    service: stringFlag(flags, 'service'),
    search: stringFlag(flags, 'search'),
    limit: intFlag(flags, 'limit', 1) ?? 100,
    json: flags['json'] === true,
    follow: flags['follow'] === true,
  });
}

/** `svc console` flags; the Flow page is also enabled by SVC_ENABLE_FLOW=true. */
function consoleOptions(flags: ParsedArgs['flags']): Partial<ConsoleOptions> {
  const port = (name: string): number | undefined => intFlag(flags, name, 1, 65535);
  const given = {
    port: port('port'),
    host: stringFlag(flags, 'host'),
    engineHost: stringFlag(flags, 'engine-host'),
    enginePort: port('engine-port'),
    wsPort: port('ws-port'),
    bridgePort: port('bridge-port'),
  };
  const options: Partial<ConsoleOptions> = {
    enableFlow: flags['enable-flow'] === true || process.env.SVC_ENABLE_FLOW === 'true',
  };
  for (const [key, value] of Object.entries(given)) {
    if (value !== undefined) Object.assign(options, { [key]: value });
  }
  return options;
}

async function consoleServer(argv: string[]): Promise<number | undefined> {
  const { flags, positionals } = parseArgs(argv, {
    port: { value: true, alias: 'p' },
    host: { value: true },
    'engine-host': { value: true },
    'engine-port': { value: true },
    'ws-port': { value: true },
    'bridge-port': { value: true },
    'enable-flow': { value: false },
    ...HELP_FLAG,
  });
  if (flags['help']) return help('console');
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
  const { consoleCommand } = await import('./commands/console.js');
  return consoleCommand(consoleOptions(flags));
}

async function worker(argv: string[]): Promise<number | undefined> {
  const { flags, positionals } = parseArgs(argv, {
    url: { value: true },
    config: { value: true, alias: 'c' },
    ...HELP_FLAG,
  });
  const { WORKER_HELP, workerCommand } = await import('./commands/worker.js');
  if (flags['help']) {
    process.stdout.write(WORKER_HELP);
    return EXIT.ok;
  }
  const [name, extra] = positionals;
  if (!name) throw new UsageError('svc worker needs a worker name, e.g. svc worker svc-queue');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  return workerCommand({ name, url: stringFlag(flags, 'url'), configPath: stringFlag(flags, 'config') });
}

async function help(topic: string | undefined): Promise<number> {
  // The worker help names the workers of @svc/config: loaded only when asked for.
  const text = topic === 'worker' ? (await import('./commands/worker.js')).WORKER_HELP : undefined;
  process.stdout.write(text ?? (topic !== undefined ? HELP[topic] : undefined) ?? MAIN_HELP);
  return EXIT.ok;
}

const COMMANDS: Record<string, Command> = {
  start: (argv) => start(argv, true),
  trigger,
  t: trigger,
  functions: list('functions'),
  workers: list('workers'),
  triggers: list('triggers'),
  health,
  init,
  logs,
  worker,
  console: consoleServer,
  help: (argv) => help(argv[0]),
};

async function run(argv: string[]): Promise<number | undefined> {
  const first = argv[0];
  if (first === undefined || first.startsWith('-')) return start(argv);
  const command = COMMANDS[first];
  if (!command) {
    const { closest } = await import('./suggest.js');
    const near = closest(first, Object.keys(COMMANDS));
    throw new UsageError(`unknown command "${first}"${near.length > 0 ? `; did you mean "${near[0]}"?` : ''}`);
  }
  return command(argv.slice(1));
}

// Output nobody reads any more (a closed pipe, `svc … | head`) is not an error of svc: it keeps running, and stops
// normally on SIGTERM, instead of dying (or hanging at exit) on an EPIPE nobody handles.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}

run(process.argv.slice(2)).then(
  (code) => {
    // undefined: the engine is running; it exits on a signal.
    if (code !== undefined) process.exitCode = code;
    if (code !== undefined) setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`svc: ${err.message}\nRun svc --help for usage.\n`);
      process.exit(EXIT.usage);
    }
    process.stderr.write(`svc: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(EXIT.error);
  },
);
