/**
 * Cron schedules: `sec min hour day-of-month month day-of-week [year]`, six or seven whitespace-separated fields,
 * read in UTC unless a timezone is named. The dialect is the one the wire protocol documents for `cron` triggers:
 * seconds first, day of week 1-7 with 1 = Sunday (or SUN-SAT), `?` allowed in the day fields, `a/n` meaning
 * "from a every n", and day of month AND day of week must both match when both are restricted.
 *
 * Every invalid expression is refused with a `CronExpressionError` whose message names the field and says what is
 * wrong, so the worker that registered the trigger can fix it without reading our source. Matching itself is
 * croner's; the checks here exist to give precise messages and to close the gaps where croner is more lenient
 * than the dialect (day of week 8, expressions that can never fire).
 */
import { Cron } from 'croner';
import { CronErrorCode } from './error-codes.js';

export class CronExpressionError extends Error {
  readonly code = CronErrorCode.InvalidCronExpression;
  constructor(message: string) {
    super(message);
    this.name = 'CronExpressionError';
  }
}

export interface Schedule {
  readonly expression: string;
  readonly timezone: string;
  /** The first tick strictly after `afterMs`, or null when the schedule never fires again. */
  nextAfter(afterMs: number): number | null;
  /** The latest tick at or before `atMs`, or null when there is none. */
  latestAtOrBefore(atMs: number): number | null;
}

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** Extra tokens croner understands in this field (checked by croner, not here). */
  special?: RegExp;
  question?: boolean;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const DAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'] as const;

const FIELDS: readonly FieldSpec[] = [
  { name: 'second', min: 0, max: 59 },
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31, special: /^(L|LW|L-\d{1,2}|\d{1,2}W)$/i, question: true },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 1, max: 7, names: DAYS, special: /^([1-7]|[A-Z]{3})(L|#[1-5])$|^L$/i, question: true },
  { name: 'year', min: 1970, max: 2099 },
];

const ORDINALS = ['1st', '2nd', '3rd', '4th', '5th', '6th', '7th'] as const;

function fieldLabel(index: number): string {
  return `${FIELDS[index]?.name ?? 'extra'} (${ORDINALS[index] ?? `${index + 1}th`} field)`;
}

/** Parses one value of a field (a number or, where allowed, a name) or returns a description of the problem. */
function parseValue(token: string, spec: FieldSpec): number | string {
  if (/^\d+$/.test(token)) {
    const value = Number(token);
    if (value < spec.min || value > spec.max) {
      const hint = spec.name === 'day of week' ? ' (1 = Sunday ... 7 = Saturday, or SUN-SAT)' : '';
      return `value ${value} is out of range ${spec.min}-${spec.max}${hint}`;
    }
    return value;
  }
  const nameIndex = spec.names?.indexOf(token.toUpperCase()) ?? -1;
  if (nameIndex >= 0) return nameIndex + 1;
  return `'${token}' is not a number${spec.names ? ` or a name (${spec.names[0]}-${spec.names.at(-1)})` : ''}`;
}

/** Checks one comma-separated item of a field; returns a problem description or undefined when it is valid. */
function checkItem(item: string, spec: FieldSpec): string | undefined {
  if (item === '') return 'has an empty list item (two commas in a row, or a trailing comma)';
  if (item === '?') return spec.question ? undefined : `'?' is only allowed in day of month and day of week`;
  if (spec.special?.test(item)) return undefined;
  const [range = '', step, extra] = item.split('/');
  if (extra !== undefined) return `'${item}' has more than one '/'`;
  if (step !== undefined) {
    if (!/^\d+$/.test(step) || Number(step) === 0) return `step '${step}' in '${item}' must be a positive integer`;
    if (Number(step) > spec.max - spec.min + 1) return `step ${step} in '${item}' is larger than the field's range`;
  }
  if (range === '*') return undefined;
  const bounds = range.split('-');
  if (bounds.length > 2 || bounds.some((b) => b === '')) return `'${range}' is not a value or a range a-b`;
  const values: number[] = [];
  for (const bound of bounds) {
    const value = parseValue(bound, spec);
    if (typeof value === 'string') return value;
    values.push(value);
  }
  if (values.length === 2 && values[0]! > values[1]!)
    return `range '${range}' runs backwards (${values[0]} > ${values[1]})`;
  return undefined;
}

function fail(expression: string, why: string): never {
  throw new CronExpressionError(`invalid cron expression '${expression}': ${why}`);
}

function checkFields(expression: string): string[] {
  const fields = expression.split(/\s+/);
  if (fields.length !== 6 && fields.length !== 7) {
    fail(
      expression,
      `expected 6 fields (sec min hour day-of-month month day-of-week) or 7 (with year), got ${fields.length}`,
    );
  }
  fields.forEach((field, index) => {
    const spec = FIELDS[index]!;
    for (const item of field.split(',')) {
      const problem = checkItem(item, spec);
      if (problem) fail(expression, `${fieldLabel(index)} '${field}': ${problem}`);
    }
  });
  if (fields[3] === '?' && fields[5] === '?')
    fail(expression, `'?' may stand in day of month or day of week, not both`);
  return fields;
}

function checkTimezone(timezone: unknown): string {
  if (timezone === undefined || timezone === null || timezone === '') return 'UTC';
  if (typeof timezone !== 'string')
    throw new CronExpressionError(`invalid timezone: expected a string such as 'UTC' or 'Europe/Paris'`);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new CronExpressionError(
      `invalid timezone '${timezone}': not an IANA time zone name (e.g. 'UTC', 'Europe/Paris')`,
    );
  }
  return timezone;
}

function croner(expression: string, timezone: string): Cron {
  try {
    return new Cron(expression, {
      mode: '6-or-7-parts',
      alternativeWeekdays: true,
      sloppyRanges: true,
      domAndDow: true,
      timezone,
      paused: true,
    });
  } catch (err) {
    const detail = err instanceof Error ? err.message.replace(/^CronPattern: /, '') : String(err);
    fail(expression, detail);
  }
}

/**
 * Validates and compiles an expression. Throws `CronExpressionError` (code `invalid_cron_expression`) with a
 * message that says what is wrong; `now` is only used to refuse expressions that can never fire again.
 */
export function parseSchedule(expression: unknown, timezone?: unknown, now: number = Date.now()): Schedule {
  if (expression === undefined || expression === null || expression === '') {
    throw new CronExpressionError(
      `cron expression is required: set config.expression, e.g. '*/5 * * * * *' (every 5 seconds)`,
    );
  }
  if (typeof expression !== 'string') {
    throw new CronExpressionError(`invalid cron expression: expected a string, got ${typeof expression}`);
  }
  const text = expression.trim();
  if (text === '') fail(expression, 'it is blank');
  checkFields(text);
  const tz = checkTimezone(timezone);
  const job = croner(text, tz);
  if (job.nextRun(new Date(now)) === null) fail(text, 'it never fires (no matching time from now on)');
  return {
    expression: text,
    timezone: tz,
    nextAfter: (afterMs) => job.nextRun(new Date(afterMs))?.getTime() ?? null,
    latestAtOrBefore: (atMs) =>
      job.previousRuns(1, new Date(Math.floor(atMs / 1000) * 1000 + 1000))[0]?.getTime() ?? null,
  };
}
