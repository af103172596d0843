export interface HeapProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number; scriptId: string };
  selfSize: number;
  id: number;
  children: HeapProfileNode[];
}

export interface HeapProfile {
  head: HeapProfileNode;
  samples?: { size: number; nodeId: number; ordinal: number }[];
}

/** Every sampled byte of a profile (its nodes' `selfSize`). */
export function allocatedBytes(profile: HeapProfile): number;

/** Bytes by allocation site (the innermost `frames` functions, `outer > inner`), most first. */
export function allocationSites(profile: HeapProfile, frames?: number): [string, number][];

/** The profile of `pid`'s window `window` in `dir`, once it is written (within `timeoutMs`). */
export function readProfile(dir: string, pid: number, window: number, timeoutMs?: number): Promise<HeapProfile>;
