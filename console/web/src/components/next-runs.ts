/** The next runs of a cron expression (6 fields, seconds first, UTC; a 7th year field of `*` is accepted). */
import { CronExpressionParser } from 'cron-parser';

export function nextRuns(expression: string, count = 5, from = new Date()): string[] {
  const fields = expression.trim().split(/\s+/);
  if (fields.length === 7 && fields[6] !== '*') return [];
  try {
    const cron = CronExpressionParser.parse(fields.slice(0, 6).join(' '), { tz: 'UTC', currentDate: from });
    return cron.take(count).map((d) => d.toISOString() ?? '');
  } catch {
    return [];
  }
}
