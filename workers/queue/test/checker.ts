/**
 * The queue checker: every acknowledged job is classified from the handler's delivery log.
 * lost = acknowledged, never completed; duplicated = completed more than once (allowed only for jobs listed in
 * `mayRepeat`, whose handler was cut off mid-attempt); unexpected = completed but never enqueued.
 */
export interface CheckResult {
  lost: string[];
  duplicated: string[];
  unexpected: string[];
  completed: number;
}

export function checkDeliveries(
  acked: Iterable<string>,
  completed: Iterable<string>,
  mayRepeat: ReadonlySet<string> = new Set(),
): CheckResult {
  const expected = new Set(acked);
  const counts = new Map<string, number>();
  for (const id of completed) counts.set(id, (counts.get(id) ?? 0) + 1);
  const lost = [...expected].filter((id) => !counts.has(id));
  const duplicated = [...counts].filter(([id, n]) => n > 1 && !mayRepeat.has(id)).map(([id]) => id);
  const unexpected = [...counts.keys()].filter((id) => !expected.has(id));
  return { lost, duplicated, unexpected, completed: counts.size };
}
