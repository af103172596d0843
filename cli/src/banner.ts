/** The short human-readable ready banner (stderr): engine URL, ports, workers, modules, config file. */
import type { DeepReadonly, SvcConfig } from '@svc/config';
import { openListenerWarnings, type RunningSvc, type WorkerStatus } from '@svc/engine/run';

export interface BannerInput {
  running: RunningSvc;
  workers: WorkerStatus[];
  source: string;
  readyMs: number;
  config: DeepReadonly<SvcConfig>;
  /** Why the command runs without its bundle (`whyUnbundled`), which makes start-up slower. */
  unbundled?: string;
  /** What the host does that sets a call's latency (`hostLatencyNote`). */
  hostNote?: string;
}

export function formatBanner({ running, workers, source, readyMs, config, unbundled, hostNote }: BannerInput): string {
  const lines = [
    `svc ready in ${readyMs} ms`,
    `  engine   ${running.engine.url}  (workers connect here; port ${running.engine.port})`,
  ];
  for (const listener of running.engine.listeners.slice(1)) {
    const rules = [listener.rbac ? 'rbac' : '', listener.middleware ? 'middleware' : ''].filter(Boolean).join(', ');
    lines.push(`  listener ${listener.url}  (${listener.name}${rules ? `; ${rules}` : ''})`);
  }
  for (const entry of config.modules) {
    const port = (entry.config as { port?: unknown }).port;
    if (typeof port === 'number' && entry.class === 'modules::api::RestApiModule') lines.push(`  http     :${port}`);
    if (typeof port === 'number' && entry.class === 'modules::stream::StreamModule') lines.push(`  stream   :${port}`);
  }
  if (workers.length > 0) {
    const shown = workers.map((w) => `${w.name} (${w.state}${w.pid !== undefined ? `, pid ${w.pid}` : ''})`);
    lines.push(`  workers  ${shown.join(', ')}`);
  }
  if (running.modules.length > 0) lines.push(`  modules  ${running.modules.join(', ')}`);
  lines.push(`  config   ${source}`);
  for (const warning of openListenerWarnings(running.engine.listeners)) lines.push(`  WARNING  ${warning}`);
  if (unbundled !== undefined)
    lines.push(`  note     started without its bundle, so start-up is slower: ${unbundled} (npm run build makes it)`);
  if (hostNote !== undefined) lines.push(`  note     ${hostNote}`);
  return `${lines.join('\n')}\n`;
}
