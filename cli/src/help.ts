/** Help texts of `svc` and its commands. */
export const MAIN_HELP = `svc: a distributed engine in which every capability runs as a worker process

Usage:
  svc [-c <file>]                        start the engine with the modules and workers of the config file
  svc trigger <function_id> [key=value …] [--json '{…}'] [--address host] [--port n] [--timeout-ms n]
                                         invoke a function once and print its JSON result
  svc <command> --help                   help of one command

Options:
  -c, --config <file>   config file (default: ./svc-config.yaml, else the embedded default)
  -h, --help            show this help
  -v, --version         print the version

Commands:
  start      start the engine (the default command)
  trigger    invoke a function synchronously

Exit codes: 0 ok · 1 error (start-up failed, or the function returned an error) · 2 bad usage or invalid config ·
3 trigger timed out · 4 engine unreachable
`;

export const START_HELP = `Usage: svc [start] [-c <file>]

Starts the engine (WebSocket port 49134 by default) with the modules and capability workers (svc-http, svc-state,
svc-queue, svc-cron, svc-stream) named in the config file, supervises them, and prints a ready banner.
SIGTERM or Ctrl-C stops the workers (SIGTERM, then SIGKILL after shutdown_grace_ms) and exits 0.

Config file: -c/--config <file>; else ./svc-config.yaml; else the embedded default (all five workers, file-based
stores under ./data). Values may use \${VAR} or \${VAR:default}. An invalid config exits 2 naming the bad path.

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
  --address <host>      engine host, or a full ws:// URL (default localhost)
  --port <n>            engine port (default 49134)
  --timeout-ms <n>      give up after n ms (default 30000)
  -h, --help            show this help

Exit codes: 0 result printed · 1 the function returned an error · 2 bad usage · 3 timed out · 4 engine unreachable

Examples:
  svc trigger orders::create sku=A-1 qty=2 gift=true
  svc trigger orders::create --help      this help, then the function as the engine describes it
`;
