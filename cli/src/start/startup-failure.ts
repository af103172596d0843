/**
 * The message `svc` prints when start-up fails: what failed and why, and for a taken port, which port, what
 * holds it (when it can be found) and how to choose another without editing the installed default config.
 */
import type { LoadedConfig } from '@svc/config';
import { findPortHolder } from './port-holder.js';

/** The variable of the embedded default config that sets each listener's port. */
const PORT_VARIABLE: Record<string, string> = {
  engine: 'SVC_PORT',
  'svc-http': 'SVC_HTTP_PORT',
  'svc-stream': 'SVC_STREAM_PORT',
};

/** The port of an `EADDRINUSE` error message (`listen EADDRINUSE: address already in use 0.0.0.0:3111`). */
export function takenPort(reason: string): number | undefined {
  const match = /EADDRINUSE[^\n]*?:(\d{1,5})\b/.exec(reason);
  return match?.[1] ? Number(match[1]) : undefined;
}

export function startupFailureMessage(
  who: string,
  reason: string,
  source: LoadedConfig['source'],
  port = takenPort(reason),
): string {
  if (port === undefined) return `svc: start-up failed: ${who} could not start: ${reason}\n`;
  const holder = findPortHolder(port);
  const held = holder ? ` (held by pid ${holder.pid}: ${holder.command})` : '';
  const variable = PORT_VARIABLE[who];
  const lines = [`svc: start-up failed: ${who} cannot listen on port ${port}: it is already in use${held}.`];
  lines.push('  Stop that process, or choose other ports for this run:');
  if (source.kind === 'embedded') {
    if (variable) lines.push(`    ${variable}=${port + 100} svc        (or: ${variable}=${port + 100} npm start)`);
    lines.push('  The default config reads SVC_PORT (engine, 49134), SVC_HTTP_PORT (3111), SVC_STREAM_PORT (3112) and');
    lines.push('  SVC_DATA_DIR (./data) from the environment; or run your own config file: svc -c <file>.');
  } else {
    lines.push(`    change the port in ${source.path}, or pass another config file: svc -c <file>`);
  }
  return `${lines.join('\n')}\n`;
}
