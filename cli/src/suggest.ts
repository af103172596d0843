/** "Did you mean …": the known names closest to a mistyped one (Levenshtein distance, case-insensitive). */
export function closest(wanted: string, known: readonly string[], max = 3): string[] {
  const limit = Math.max(2, Math.floor(wanted.length / 3));
  return known
    .map((name) => ({ name, distance: distance(wanted.toLowerCase(), name.toLowerCase()) }))
    .filter((x) => x.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((x) => x.name);
}

export function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
