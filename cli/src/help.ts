/** Help texts of `svc` and its commands. */
export const MAIN_HELP = `svc: a distributed engine in which every capability runs as a worker process

Usage:
  svc [-c <file>]                        start the engine with the modules and workers of the config file
  svc trigger <function_id> [key=value …] [--json '{…}'] [--timeout-ms n]
                                         invoke a function once and print its JSON result
  svc functions | workers | triggers [--json] [--all]
                                         list what the engine knows (a table; JSON with --json)
  svc health [--json]                    check the engine; exit 0 when healthy (for scripts and healthchecks)
  svc init <dir>                         scaffold a TypeScript worker project in <dir>
  svc worker <name> [--url ws://…] [-c <file>]
                                         run one capability worker (svc-queue, …) connected to an engine
  svc console [--port 3113] [--enable-flow] …   serve the web console for a running engine
  svc logs [--level l] [--trace-id id] [--service s] [--search text] [--limit n] [--json] [-f]
                                         print the log store of the observability module
  svc <command> --help                   help of one command

Commands that talk to a running engine find it like the SDK does: --address <host|ws://url> and --port <n>,
else SVC_URL, else SVC_PORT on localhost, else ws://localhost:49134.

Options:
  -c, --config <file>   config file (default: ./svc-config.yaml, else the embedded default)
  -h, --help            show this help
  -v, --version         print the version

Commands:
  start      start the engine (the default command)
  trigger    invoke a function synchronously
  functions  list registered functions
  workers    list connected workers
  triggers   list registered triggers
  health     check the engine's health
  init       scaffold a worker project
  worker     run one capability worker as its own process
  console    serve the web console (http://127.0.0.1:3113)
  logs       print (or follow) stored log records

Exit codes: 0 ok · 1 error (start-up failed, the function returned an error, the engine is unhealthy) ·
2 bad usage or invalid config · 3 trigger timed out · 4 engine unreachable
`;

export const START_HELP = `Usage: svc [start] [-c <file>]

Starts the engine (WebSocket port 49134 by default) with the modules and capability workers (svc-http, svc-state,
svc-queue, svc-cron, svc-stream) named in the config file, supervises them, and prints a ready banner.
SIGTERM or Ctrl-C stops the workers (SIGTERM, then SIGKILL after shutdown_grace_ms) and exits 0.

Config file: -c/--config <file>; else ./svc-config.yaml; else the embedded default (all five workers, file-based
stores under ./data). Values may use \${VAR} or \${VAR:default}. An invalid config exits 2 naming the bad path.

The embedded default reads SVC_PORT (engine, 49134), SVC_HTTP_PORT (3111), SVC_STREAM_PORT (3112) and
SVC_DATA_DIR (./data): set them to move ports or data without editing any file. A taken port, or a capability
worker that fails while starting, stops start-up at once (exit 1) with the reason.

Options:
  -c, --config <file>   config file
  -h, --help            show this help
`;

export const TRIGGER_HELP = `Usage: svc trigger <function_id> [key=value …] [options]

Invokes <function_id> once, waits for the result and prints it as JSON on stdout.
On an error prints {"code","message"} on stderr and exits non-zero.

Payload:
  key=value             a field; values parse as JSON where they can: n=3 → 3, ok=true → true, x=null → null,
                        tags='["a","b"]' → array; anything else is a string. key:=value forces a string.
                        Dotted keys nest: user.name=ada → {"user":{"name":"ada"}}
  --json '<json>'       the whole payload (key=value pairs are applied on top of it)

Options:
  --address <host>      engine host, or a full ws:// URL (default: SVC_URL, else localhost)
  --port <n>            engine port (default: SVC_PORT, else 49134)
  --timeout-ms <n>      give up after n ms (default 30000)
  -h, --help            show this help

Exit codes: 0 result printed · 1 the function returned an error · 2 bad usage · 3 timed out · 4 engine unreachable

Examples:
  svc trigger orders::create sku=A-1 qty=2 gift=true
  svc trigger orders::create --help      this help, then the function as the engine describes it
`;

export const LOGS_HELP = `Usage: svc logs [options]

Prints the records of the observability module's log store (engine::logs::list), oldest first: handler logs of
workers, iii-sdk worker logs, engine events. Needs modules::observability::OtelModule with enabled: true.

Options:
  --level <l>        only this level: trace, debug, info, warn, error
  --trace-id <id>    only records of this trace
  --service <s>      only this service (worker name; * and ? patterns)
  --search <text>    only records whose body contains the text
  --limit <n>        at most n records (default 100)
  --json             one JSON object per line
  -f, --follow       keep printing new records until Ctrl-C
  --address <host>   engine host or ws:// URL (default: SVC_URL, else localhost)
  --port <n>         engine port (default: SVC_PORT, else 49134)
  -h, --help         show this help
`;

export const CONSOLE_HELP = `Usage: svc console [options]

Serves the web console for a running engine: functions, triggers, states, streams, traces and logs, flow, queues
and workers. The console is itself a worker of the engine (svc-console): it registers the engine::console::*
functions (bound as http triggers under /_console/* on the engine's REST port) and reaches everything through
functions. It runs until SIGTERM or Ctrl-C; the engine may start before or after it.

Options:
  -p, --port <n>          port of the console (default 3113)
  --host <host>           address to listen on (default 127.0.0.1)
  --engine-host <host>    host of the engine (default 127.0.0.1)
  --engine-port <n>       the engine's REST port, svc-http (default 3111)
  --ws-port <n>           the stream socket, svc-stream (default 3112), for live updates
  --bridge-port <n>       the engine's worker WebSocket port (default 49134)
  --enable-flow           show the Flow page (also: SVC_ENABLE_FLOW=true)
  -h, --help              show this help
`;

const TARGET = `  --address <host>      engine host, or a full ws:// URL (default: SVC_URL, else localhost)
  --port <n>            engine port (default: SVC_PORT, else 49134)
  -h, --help            show this help
`;

function listHelp(what: string, source: string, columns: string): string {
  return `Usage: svc ${what} [--json] [--all] [--address host] [--port n]

Lists the ${what} the engine knows (${source}): ${columns}.
A table by default; --json prints the engine's answer as a JSON array.

Options:
  --json                JSON instead of a table
  --all                 include the engine's own entries (engine::*)
${TARGET}`;
}

export const HEALTH_HELP = `Usage: svc health [--json] [--timeout-ms n] [--address host] [--port n]

Asks the engine engine::health::check and prints its status. The exit code alone answers a script or a
container healthcheck:  0 healthy · 1 answered, not healthy · 4 unreachable.

  healthcheck: ["CMD", "node", "cli/dist/main.js", "health"]

Options:
  --json                print the engine's whole answer
  --timeout-ms <n>      give up after n ms (default 5000)
${TARGET}`;

export const INIT_HELP = `Usage: svc init <dir> [--name <worker-name>] [--force]

Creates a TypeScript worker project in <dir>: package.json (depends on @svc/sdk), tsconfig.json,
src/worker.ts (a function and an HTTP trigger), svc-config.yaml (svc with the HTTP worker and your worker
under the supervisor: a change under src/ rebuilds it, then restarts it) and a README.

  svc init my-worker && cd my-worker && npm install && npm run dev

Options:
  --name <name>         the worker's name (default: the directory's name)
  --force               write into a directory that is not empty
  -h, --help            show this help
`;

/** Help of each command, by name (`svc help <command>`, `svc <command> --help`). */
export const HELP: Record<string, string> = {
  start: START_HELP,
  trigger: TRIGGER_HELP,
  t: TRIGGER_HELP,
  functions: listHelp('functions', 'engine::functions::list', 'id, worker, replicas, description'),
  workers: listHelp('workers', 'engine::workers::list', 'name, id, runtime, status, functions, active invocations'),
  triggers: listHelp('triggers', 'engine::registered-triggers::list', 'id, type, function, worker, config'),
  health: HEALTH_HELP,
  init: INIT_HELP,
  console: CONSOLE_HELP,
  logs: LOGS_HELP,
};
