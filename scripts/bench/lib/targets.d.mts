/** A row of `npm run bench`, as far as its target is concerned. */
export interface TargetRow {
  value: unknown;
  unit?: string;
  floor?: unknown;
  ratio?: unknown;
  target?: string;
}

export function meetsTarget(row: TargetRow): boolean | undefined;

export function judgedFigure(row: TargetRow): string;

export function shownRatio(row: TargetRow): string;

export function ratioWithDigits(row: TargetRow, fewest: number): string;

export function describeMiss(row: TargetRow & { area: string; name: string }, steal?: number): string;
