import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onStopSignals, REPEATED_SIGNAL_MS } from '../src/stop-signals.js';

/** An emitter standing in for the process, and a clock the test moves. */
function setup(forces?: (signal: NodeJS.Signals) => boolean) {
  const target = new EventEmitter();
  let clock = 1000;
  const calls: string[] = [];
  const signals = onStopSignals(
    {
      stop: (signal) => calls.push(`stop ${signal}`),
      force: (signal) => calls.push(`force ${signal}`),
      ...(forces !== undefined ? { forces } : {}),
    },
    target,
    () => clock,
  );
  const send = (signal: NodeJS.Signals, afterMs = 0): void => {
    clock += afterMs;
    target.emit(signal, signal);
  };
  return { calls, send, signals, target };
}

describe('stop signals', () => {
  it('one Ctrl-C delivered twice at once (terminal and npm) stops once; a later one forces the exit', () => {
    const { calls, send } = setup();
    send('SIGINT');
    send('SIGINT', 2);
    send('SIGTERM', 10); // a supervisor's SIGTERM right after the same Ctrl-C
    expect(calls).toEqual(['stop SIGINT']);
    send('SIGINT', REPEATED_SIGNAL_MS);
    expect(calls).toEqual(['stop SIGINT', 'force SIGINT']);
  });

  it('a signal the handlers refuse as a force is ignored, others still force', () => {
    const { calls, send } = setup((signal) => signal !== 'SIGTERM');
    send('SIGINT');
    send('SIGTERM', REPEATED_SIGNAL_MS + 100);
    expect(calls).toEqual(['stop SIGINT']);
    send('SIGINT', 100);
    expect(calls).toEqual(['stop SIGINT', 'force SIGINT']);
  });

  it('deliver() counts as the first signal; off() stops listening', () => {
    const { calls, send, signals, target } = setup();
    signals.deliver('SIGTERM');
    send('SIGINT', 5);
    expect(calls).toEqual(['stop SIGTERM']);
    signals.off();
    expect(target.listenerCount('SIGINT') + target.listenerCount('SIGTERM')).toBe(0);
  });
});
