import { describe, expect, it } from 'vitest';
import { CronExpressionError, parseSchedule } from '../src/schedule.js';

const NOW = Date.parse('2026-11-21T19:00:00.000Z'); // a Saturday
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('parseSchedule: valid expressions', () => {
  const cases: Array<[string, string | undefined, string]> = [
    ['* * * * * *', undefined, '2026-11-21T19:00:01.000Z'],
    ['*/5 * * * * *', undefined, '2026-11-21T19:00:05.000Z'],
    ['0 */5 * * * *', undefined, '2026-11-21T19:05:00.000Z'],
    ['0 */5 * * * * *', undefined, '2026-11-21T19:05:00.000Z'], // seven fields, year wildcard
    ['0 0 0 1 1 * 2030', undefined, '2030-01-01T00:00:00.000Z'], // seven fields, a fixed year
    ['0 0 0 1 1 ? 2027-2029', undefined, '2027-01-01T00:00:00.000Z'],
    ['1/10 * * * * *', undefined, '2026-11-21T19:00:01.000Z'], // from 1 every 10
    ['0 0 6 * * Sun,Sat', undefined, '2026-11-22T06:00:00.000Z'],
    ['0 0 6 * * 1', undefined, '2026-11-22T06:00:00.000Z'], // 1 = Sunday
    ['0 0 6 * * 7', undefined, '2026-11-28T06:00:00.000Z'], // 7 = Saturday
    ['0 0 0 ? * MON', undefined, '2026-11-23T00:00:00.000Z'],
    ['0 30 9 1,15 May-Aug *', undefined, '2027-05-01T09:30:00.000Z'],
    ['0 0 0 L * ?', undefined, '2026-11-30T00:00:00.000Z'],
    ['  0   0 12 * * *  ', undefined, '2026-11-22T12:00:00.000Z'], // extra whitespace is fine
    ['0 0 9 * * *', 'Europe/Paris', '2026-11-22T08:00:00.000Z'], // 09:00 in Paris is 08:00 UTC in winter
    ['0 0 9 * * *', 'UTC', '2026-11-22T09:00:00.000Z'],
  ];
  it.each(cases)('%j (tz %s) next fires at %s', (expression, tz, next) => {
    const schedule = parseSchedule(expression, tz, NOW);
    expect(iso(schedule.nextAfter(NOW))).toBe(next);
    expect(schedule.timezone).toBe(tz ?? 'UTC');
  });

  it('day of month and day of week must both match when both are restricted', () => {
    // The 13th that is a Friday (6): November 2026 has none, August 2027 does.
    const schedule = parseSchedule('0 0 0 13 * 6', undefined, NOW);
    expect(iso(schedule.nextAfter(NOW))).toBe('2027-08-13T00:00:00.000Z');
  });

  it('latestAtOrBefore finds the tick at or before an instant', () => {
    const schedule = parseSchedule('*/5 * * * * *', undefined, NOW);
    expect(iso(schedule.latestAtOrBefore(NOW))).toBe('2026-11-21T19:00:00.000Z');
    expect(iso(schedule.latestAtOrBefore(NOW + 4999))).toBe('2026-11-21T19:00:00.000Z');
    expect(iso(schedule.latestAtOrBefore(NOW + 5000))).toBe('2026-11-21T19:00:05.000Z');
    expect(iso(schedule.latestAtOrBefore(NOW + 3_600_123))).toBe('2026-11-21T20:00:00.000Z');
  });
});

describe('parseSchedule: invalid expressions say what is wrong', () => {
  const cases: Array<[unknown, unknown, RegExp]> = [
    [undefined, undefined, /cron expression is required/],
    ['', undefined, /cron expression is required/],
    ['   ', undefined, /it is blank/],
    [42, undefined, /expected a string, got number/],
    ['* * * * *', undefined, /expected 6 fields .* or 7 \(with year\), got 5/],
    ['* * * * * * * *', undefined, /got 8/],
    ['61 * * * * *', undefined, /second \(1st field\) '61': value 61 is out of range 0-59/],
    ['0 60 * * * *', undefined, /minute \(2nd field\) '60': value 60 is out of range 0-59/],
    ['0 0 24 * * *', undefined, /hour \(3rd field\) '24': value 24 is out of range 0-23/],
    ['0 0 0 0 * *', undefined, /day of month \(4th field\) '0': value 0 is out of range 1-31/],
    ['0 0 0 * 13 *', undefined, /month \(5th field\) '13': value 13 is out of range 1-12/],
    ['0 0 0 * * 0', undefined, /day of week \(6th field\) '0': value 0 is out of range 1-7 \(1 = Sunday/],
    ['0 0 0 * * 8', undefined, /day of week .* value 8 is out of range 1-7/],
    ['0 0 0 * * * 1969', undefined, /year \(7th field\) '1969': value 1969 is out of range 1970-2099/],
    ['a * * * * *', undefined, /second \(1st field\) 'a': 'a' is not a number/],
    ['0 0 0 * FOO *', undefined, /month .* 'FOO' is not a number or a name \(JAN-DEC\)/],
    ['*/0 * * * * *', undefined, /step '0' in '\*\/0' must be a positive integer/],
    ['*/x * * * * *', undefined, /step 'x'/],
    ['*/61 * * * * *', undefined, /step 61 .* larger than the field's range/],
    ['1/2/3 * * * * *', undefined, /more than one '\/'/],
    ['10-5 * * * * *', undefined, /range '10-5' runs backwards/],
    ['1-2-3 * * * * *', undefined, /'1-2-3' is not a value or a range/],
    ['1,,2 * * * * *', undefined, /empty list item/],
    ['? * * * * *', undefined, /'\?' is only allowed in day of month and day of week/],
    ['0 0 0 ? * ?', undefined, /not both/],
    ['0 0 0 30 2 *', undefined, /never fires/],
    ['0 0 0 1 1 * 2020', undefined, /never fires/],
    ['0 0 0 * * *', 'Mars/Olympus', /invalid timezone 'Mars\/Olympus'/],
    ['0 0 0 * * *', 5, /invalid timezone: expected a string/],
  ];
  it.each(cases)('%j (tz %j) is refused', (expression, tz, message) => {
    let error: unknown;
    try {
      parseSchedule(expression, tz, NOW);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(CronExpressionError);
    expect((error as CronExpressionError).code).toBe('invalid_cron_expression');
    expect((error as Error).message).toMatch(message);
  });
});

describe('parseSchedule: time zones with daylight saving', () => {
  it('a fixed time inside the spring-forward gap runs once, right after the gap (Europe/Paris)', () => {
    // 2027-03-28: clocks go from 02:00 to 03:00 local (01:00 UTC).
    const schedule = parseSchedule('0 30 2 * * *', 'Europe/Paris', Date.parse('2027-03-27T12:00:00Z'));
    const first = schedule.nextAfter(Date.parse('2027-03-27T12:00:00Z'))!;
    expect(iso(first)).toBe('2027-03-28T01:00:00.000Z'); // 03:00 local, the first valid time after the gap
    expect(iso(schedule.nextAfter(first))).toBe('2027-03-29T00:30:00.000Z'); // 02:30 local (UTC+2)
  });

  it('a fixed time in the repeated autumn hour runs once (Europe/Paris)', () => {
    // 2027-10-31: 03:00 local goes back to 02:00, so 02:30 happens twice.
    const schedule = parseSchedule('0 30 2 * * *', 'Europe/Paris', Date.parse('2027-10-30T12:00:00Z'));
    const first = schedule.nextAfter(Date.parse('2027-10-30T12:00:00Z'))!;
    const second = schedule.nextAfter(first)!;
    expect(iso(first)).toBe('2027-10-31T00:30:00.000Z');
    expect(iso(second)).toBe('2027-11-01T01:30:00.000Z');
  });
});
