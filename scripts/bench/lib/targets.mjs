// The targets of `npm run bench`'s rows: whether a row meets the one it names (run.mjs prints it beside the row).
import { STEAL_WORTH_NAMING } from './host-cpu.mjs';

/** Milliseconds in each unit a target may name. */
const MS_PER = { ms: 1, s: 1000 };

/**
 * Whether a row meets its target (`≥ x`, `≤ x`, `< x`, `> x`, or `x` for equal); undefined for a row without one. A
 * target with a unit (`< 300 ms`, `< 1.5 s`) is on the row's value; a unitless one on its ratio when it has one,
 * else on its value. A ratio is judged unrounded (value / floor, when that is what it rounds): 0.696, which the row
 * rounds to 0.7, misses `≥ 0.7` (and prints as 0.696: `shownRatio`).
 */
export function meetsTarget(row) {
  const judged = judge(row);
  if (judged === undefined) return undefined;
  return holds(judged.op, judged.actual, judged.limit);
}

function holds(op, actual, limit) {
  if (op === '≥') return actual >= limit;
  if (op === '≤') return actual <= limit;
  if (op === '<') return actual < limit;
  if (op === '>') return actual > limit;
  return actual === limit;
}

/**
 * A row's ratio as the bench prints it: as the row rounds it, unless that rounding reads the other way than the
 * unrounded ratio its target is judged on; then with the fewest decimals (three or more) that read as the verdict
 * does: 16,723 against 33,483 req/s prints as 0.499, not 0.5, beside `≥ 0.5`.
 */
export function shownRatio(row) {
  if (row.ratio === undefined) return '';
  const judged = judge(row);
  if (judged === undefined || judged.onValue || judged.actual === row.ratio) return String(row.ratio);
  if (holds(judged.op, row.ratio, judged.limit) === holds(judged.op, judged.actual, judged.limit)) {
    return String(row.ratio);
  }
  return decidingDigits(judged, 3);
}

/**
 * A row's ratio with `fewest` decimals, or with as many more as it takes to read the way its verdict does (0.4996
 * against `≥ 0.5` with two: 0.4996, not 0.50); a row whose target is not on its ratio gets value / floor with `fewest`.
 */
export function ratioWithDigits(row, fewest) {
  const judged = judge(row);
  if (judged === undefined || judged.onValue) return (Number(row.value) / Number(row.floor)).toFixed(fewest);
  return decidingDigits(judged, fewest);
}

function decidingDigits({ op, actual, limit }, fewest) {
  const verdict = holds(op, actual, limit);
  for (let digits = fewest; digits <= 6; digits++) {
    const text = actual.toFixed(digits);
    if (holds(op, Number(text), limit) === verdict) return text;
  }
  return String(actual);
}

/**
 * The figure a row's target is judged on, as the summary of missed rows prints it: the ratio, or the value with its
 * unit for a target on the value (`p99 64.87 ms` misses `< 50 ms`, not a ratio of 0 against an overloaded peer).
 */
export function judgedFigure(row) {
  const judged = judge(row);
  if (judged === undefined) return String(row.ratio ?? row.value);
  return judged.onValue ? `${row.value} ${row.unit ?? ''}`.trim() : shownRatio(row);
}

/**
 * The summary line of a missed row: its area, name, judged figure and target, and the share of the CPU the host
 * stole while its script ran when that reached `STEAL_WORTH_NAMING` (a noisy minute, not a regression).
 */
export function describeMiss(row, steal = 0) {
  const stolen =
    steal >= STEAL_WORTH_NAMING ? `; ${Math.round(steal * 100)}% of the CPU stolen by the host meanwhile` : '';
  return `${row.area}: ${row.name} (${judgedFigure(row)}, target ${row.target}${stolen})`;
}

function judge(row) {
  const m = /^([≥≤<>]?)\s*([\d.]+)\s*(ms|s)?$/.exec(String(row.target ?? '').trim());
  if (!m) return undefined;
  const [, op, number, unit] = m;
  let limit = Number(number);
  let actual;
  const onValue = unit !== undefined || typeof row.ratio !== 'number';
  if (onValue) {
    actual = row.value;
    if (unit !== undefined && row.unit in MS_PER) limit = (limit * MS_PER[unit]) / MS_PER[row.unit];
  } else {
    const exact = typeof row.floor === 'number' && row.floor !== 0 ? row.value / row.floor : undefined;
    actual = exact !== undefined && Math.abs(exact - row.ratio) <= 0.01 ? exact : row.ratio;
  }
  if (typeof actual !== 'number') return undefined;
  return { op, actual, limit, onValue };
}
