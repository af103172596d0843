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

export function relayOutput(stream: Readable | null, logger: Logger, fallback: 'info' | 'warn'): void {
  if (!stream) return;
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (raw) => {
    const line = raw.length > MAX_LINE ? `${raw.slice(0, MAX_LINE)}…` : raw;
    if (line.trim() === '') return;
    const parsed = parsePinoLine(line);
    if (parsed) {
      const { level, msg, ...fields } = parsed;
      delete fields['time'];
      delete fields['pid'];
      delete fields['hostname'];
      delete fields['name'];
      logger[level](fields, msg);
    } else {
      logger[fallback](line);
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
