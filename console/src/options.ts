/** What `svc console` is told on its command line, with the defaults docs/console.md lists. */
export interface ConsoleOptions {
  /** Port of the console's own web server. */
  port: number;
  host: string;
  /** Host of the engine: its REST port (svc-http), its worker socket and the stream socket live there. */
  engineHost: string;
  /** The engine's REST port (svc-http), where the `_console/*` routes are bound as `http` triggers. */
  enginePort: number;
  /** The stream socket (svc-stream), proxied to the browser at `/ws/streams` for live updates. */
  wsPort: number;
  /** The engine's worker WebSocket port, which the console worker connects to. */
  bridgePort: number;
  enableFlow: boolean;
  /** Folder of the built front end (index.html and assets/). */
  webRoot: string;
}

export const CONSOLE_DEFAULTS = {
  port: 3113,
  host: '127.0.0.1',
  engineHost: '127.0.0.1',
  enginePort: 3111,
  wsPort: 3112,
  bridgePort: 49134,
  enableFlow: false,
} as const;

/** The stream and group the console worker publishes live events on (topology, queues, traces). */
export const LIVE_STREAM = 'svc:console';
export const LIVE_GROUP = 'live';

/** State scope and key prefix where the Flow page keeps its saved layouts. */
export const FLOW_SCOPE = 'svc:console:flows';

/** The longest timeout `_console/invoke` accepts (10 minutes). */
export const MAX_INVOKE_TIMEOUT_MS = 600_000;
