/**
 * The quick check of an engine span batch's lines (decode-engine-spans.ts, `EngineSpanDecoder.pack`): one native
 * pattern match for a line in exactly the form the engine writes; any other line goes through the decoder's
 * field-by-field check.
 */

/** `writtenLine` patterns by strings-table length (a batch's table is short; lengths repeat). */
const writtenLines = new Map<number, RegExp>();

/**
 * A sticky pattern for one line in exactly the form the engine writes (its span-lines.ts) whose indexes are below
 * `strings` (the table's length), ending where the line ends: every line it matches, `checkLine` accepts. With it,
 * svc-otel's ingest of the engine's batches (scripts/bench/otel-ingest-micro.mjs) went from 0.54–0.58 to 0.46–0.48 µs
 * of CPU per span.
 */
export function writtenLine(strings: number): RegExp {
  let line = writtenLines.get(strings);
  if (line === undefined) {
    const index = indexBelow(strings);
    const micros = '(?:[1-9][0-9]{0,14}|[1-8][0-9]{15})'; // up to 8,999,999,999,999,999: a safe integer
    const optional = `(?:-|${index})`;
    const fields = [
      '[0-9a-f]{32}',
      '[0-9a-f]{16}',
      '(?:-|[0-9a-f]{16})',
      index,
      index,
      index,
      `(?:#${index}|[^ #\n][^ \n]*)`,
      micros,
      micros,
      '[012]',
      optional,
      `(?:- - -|${index} ${optional} ${optional})`,
    ];
    line = new RegExp(`${fields.join(' ')}(?=\n|$)`, 'y');
    if (writtenLines.size >= 64) writtenLines.clear();
    writtenLines.set(strings, line);
  }
  return line;
}

/** A pattern for the decimal integers 0 to `n - 1` without leading zeros (none when `n` is 0). */
export function indexBelow(n: number): string {
  if (n <= 0) return '(?!)';
  const max = String(n - 1);
  if (max.length === 1) return `[0-${max}]`;
  const parts = ['[0-9]'];
  for (let digits = 2; digits < max.length; digits++) parts.push(`[1-9][0-9]{${digits - 1}}`);
  // the numbers as long as max and below it: a common prefix, then a smaller digit, then any digits
  for (let i = 0; i < max.length; i++) {
    const lowest = i === 0 ? 1 : 0;
    const digit = max.charCodeAt(i) - 48; // '0'
    const rest = max.length - i - 1;
    if (digit > lowest) parts.push(`${max.slice(0, i)}[${lowest}-${digit - 1}]${rest > 0 ? `[0-9]{${rest}}` : ''}`);
  }
  parts.push(max);
  return `(?:${parts.join('|')})`;
}
