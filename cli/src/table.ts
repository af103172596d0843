/** Rows as an aligned text table (header underlined in a terminal); long cells are cut with "…". */
const MAX_CELL = 60;

export function formatTable(columns: readonly string[], rows: readonly (readonly string[])[], tty: boolean): string {
  if (rows.length === 0) return '(none)\n';
  const cut = (cell: string): string => (cell.length > MAX_CELL ? `${cell.slice(0, MAX_CELL - 1)}…` : cell);
  const cells = rows.map((row) => row.map(cut));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => (row[i] ?? '').length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const header = line(columns.map((c) => c.toUpperCase()));
  return [tty ? `\u001b[1m${header}\u001b[0m` : header, ...cells.map(line)].join('\n') + '\n';
}
