export interface PerfMapEntry {
  start: number;
  size: number;
  name: string;
}

/** The code objects of a perf map, sorted by start address. */
export function readPerfMap(text: string): PerfMapEntry[];

/** The name of the code object holding `address`, or undefined. */
export function nameAt(entries: PerfMapEntry[], address: number): string | undefined;

/** Self cost per function of a callgrind dump's text, and the total. */
export function selfCosts(text: string, perfMap?: PerfMapEntry[]): { costs: Map<string, number>; total: number };

/** The kind of work a function's name says it is. */
export function kindOf(name: string): string;

/** The instructions a dump's text spent in V8's garbage collector's own functions (their self cost). */
export function collectorCost(text: string): number;

/** Self costs of a dump file, by function and by kind of work, each sorted by cost. */
export function summariseDump(
  file: string,
  perfMapFile?: string,
): { total: number; functions: [string, number][]; kinds: [string, number][] };
