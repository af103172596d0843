/**
 * A child's stdout/stderr, line by line, into the engine's logger under the child's name. Lines that are pino
 * JSON keep their level and message; anything else is logged as text (stdout at info, stderr at warn).
 */
import type { Logger } from 'pino';
import type { Readable } from 'node:stream';
import { createInterface } from 'node:readline';

const PINO_LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};
/** Longest line relayed as-is; longer lines are cut (a child must not make the engine buffer without bound). */
const MAX_LINE = 16 * 1024;

export interface RelayHooks {
  /**
   * Every error-level line (pino `error`/`fatal`, with the logged error's message) and every plain stderr line:
   * the supervisor keeps the last one as the reason a process failed to start.
   */
  onProblem?: (text: string) => void;
  /** A JSON log line with `"svc_ready": true`: the process says it is up (capability workers, after start-up). */
  onReady?: () => void;
}

export function relayOutput(
  stream: Readable | null,
  logger: Logger,
  fallback: 'info' | 'warn',
  hooks: RelayHooks = {},
): void {
  const { onProblem, onReady } = hooks;
  if (!stream) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (raw) => {
    const line = raw.length > MAX_LINE ? `${raw.slice(0, MAX_LINE)}…` : raw;
    if (line.trim() === '') return;
    const parsed = parsePinoLine(line);
    if (parsed) {
      const { level, msg, svc_ready: ready, ...fields } = parsed;
      if (ready === true) onReady?.();
      delete fields['time'];
      delete fields['pid'];
      delete fields['hostname'];
      delete fields['name'];
      logger[level](fields, msg);
      if (level === 'error' || level === 'fatal') onProblem?.(problemText(msg, fields['err']));
    } else {
      logger[fallback](line);
      if (fallback === 'warn') onProblem?.(line);
    }
  });
}

function parsePinoLine(
  line: string,
): ({ level: (typeof PINO_LEVELS)[number]; msg: string } & Record<string, unknown>) | undefined {
  if (!line.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const level = typeof record['level'] === 'number' ? PINO_LEVELS[record['level']] : undefined;
  if (!level) return undefined;
  const msg = typeof record['msg'] === 'string' ? record['msg'] : '';
  return { ...record, level, msg };
}

/** `msg: err.message` (pino serialises an error as `{type, message, stack, code?}`). */
function problemText(msg: string, err: unknown): string {
  const detail =
    err && typeof err === 'object' && 'message' in err && typeof err.message === 'string' ? err.message : '';
  if (!detail || msg.includes(detail)) return msg;
  return msg ? `${msg}: ${detail}` : detail;
}
