// One clock for every process of a benchmark on this machine. A latency measured across processes (a timestamp
// written by the sender, read by the receiver) needs both ends to read the same clock. `performance.timeOrigin +
// performance.now()` does not give that: `timeOrigin` is the wall clock read once when the process started, so two
// processes started minutes apart disagree by however far the wall clock moved against the monotonic clock in
// between (seen here: 412 ms between the bench's parent, started 7 minutes earlier, and its new client processes,
// which made a 10 ms p99 read as 421 ms). `process.hrtime` reads CLOCK_MONOTONIC, which all processes of a Linux
// host share: milliseconds since boot, with sub-microsecond resolution.

// `performance.now()` counts on that same clock from the process's own origin, so the origin's place on it is read
// once and each reading after costs what `performance.now()` does (a `process.hrtime.bigint()` per reading, with its
// BigInt, took 3.8% of a subscriber's CPU in the events bench). A pair of readings can be split by a slow first
// call (0.6 ms, seen with the lazily loaded global `performance`) or by preemption, so the origin comes from the
// tightest of several pairs.
import { performance } from 'node:perf_hooks';

function originOnMonotonicClock() {
  let narrowest = Infinity;
  let origin = 0;
  for (let i = 0; i < 50; i++) {
    const before = performance.now();
    const monotonic = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    if (after - before < narrowest) {
      narrowest = after - before;
      origin = monotonic - (before + after) / 2;
    }
  }
  return origin;
}

const origin = originOnMonotonicClock();

/** Milliseconds on the machine's monotonic clock, the same in every process of this host. */
export const monotonicMs = () => origin + performance.now();
