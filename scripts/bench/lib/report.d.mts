import type { TargetRow } from './targets.mjs';

/** One `npm run bench` as its JSON file holds it, as far as the report reads it. */
export interface BenchResult {
  at: string;
  machine?: { systemCallNs?: number; loadavg?: number[] };
  areas?: { area: string; seconds: number; cpu?: { busy: number; idle: number; steal: number }; log?: string[] }[];
  rows: (TargetRow & { area: string; name: string; peer?: string; met?: boolean })[];
}

/** A run with the label of its column. */
export interface ReportRun {
  label: string;
  result: BenchResult;
}

export function ratioText(row: TargetRow): string;

export const REPORT_ROWS: { title: string; cell: (run: ReportRun) => string }[];

export function reportTables(runs: ReportRun[]): string;
