/** Whether valgrind and callgrind_control can be run here. */
export function callgrindAvailable(): boolean;

/** The command (program and arguments) that runs a program under callgrind, its dumps written to `dir`. */
export function callgrindCommand(dir: string): string[];

/** Starts a new window for the process's counts. */
export function zeroCounts(pid: number): void;

/**
 * The instructions the process ran since its counts were last zeroed: on its main thread, on all, and on its main
 * thread in V8's garbage collector's own functions.
 */
export function dumpCounts(pid: number, dir: string): { main: number; all: number; collector: number };

/** The count of instructions a callgrind dump holds. */
export function instructionTotal(text: string): number;
