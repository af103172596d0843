/**
 * Stop signals (SIGINT, SIGTERM) counted as a person means them: the first asks for an orderly stop, a later one
 * for an exit at once. One Ctrl-C can arrive more than once: a terminal sends it to every process of its foreground
 * group, and `npm start` forwards the SIGINT it got to its child as well, so a program run by npm gets it twice
 * within milliseconds; a supervisor that stops its children sends SIGTERM to a child the same Ctrl-C already
 * reached. A signal within `REPEATED_SIGNAL_MS` of the first is therefore that same request, not a second one.
 */
import type { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';

/** How long after the first stop signal another one still counts as the same request. */
export const REPEATED_SIGNAL_MS = 500;

export interface StopSignalHandlers {
  /** The first stop signal: stop in order. */
  stop(signal: NodeJS.Signals): void;
  /** A stop signal after the window: exit now. */
  force(signal: NodeJS.Signals): void;
  /** Whether `signal`, arriving after the window, forces the exit (default: every signal does). */
  forces?(signal: NodeJS.Signals): boolean;
}

export interface StopSignals {
  /** Handles `signal` as if it had just arrived (a signal a program noted before it listened). */
  readonly deliver: (signal: NodeJS.Signals) => void;
  /** Stops listening. */
  readonly off: () => void;
}

/** Listens for SIGINT and SIGTERM on `target` (the process) and calls `handlers` as the module comment says. */
export function onStopSignals(
  handlers: StopSignalHandlers,
  target: Pick<EventEmitter, 'on' | 'off'> = process,
  now: () => number = () => performance.now(),
): StopSignals {
  let firstAt: number | undefined;
  const deliver = (signal: NodeJS.Signals): void => {
    const at = now();
    if (firstAt === undefined) {
      firstAt = at;
      handlers.stop(signal);
    } else if (at - firstAt >= REPEATED_SIGNAL_MS && handlers.forces?.(signal) !== false) {
      handlers.force(signal);
    }
  };
  target.on('SIGINT', deliver);
  target.on('SIGTERM', deliver);
  return {
    deliver,
    off: () => {
      target.off('SIGINT', deliver);
      target.off('SIGTERM', deliver);
    },
  };
}
