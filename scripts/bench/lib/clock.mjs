// One clock for every process of a benchmark on this machine. A latency measured across processes (a timestamp
// written by the sender, read by the receiver) needs both ends to read the same clock. `performance.timeOrigin +
// performance.now()` does not give that: `timeOrigin` is the wall clock read once when the process started, so two
// processes started minutes apart disagree by however far the wall clock moved against the monotonic clock in
// between (seen here: 412 ms between the bench's parent, started 7 minutes earlier, and its new client processes,
// which made a 10 ms p99 read as 421 ms). `process.hrtime` reads CLOCK_MONOTONIC, which all processes of a Linux
// host share: milliseconds since boot, with sub-microsecond resolution.

/** Milliseconds on the machine's monotonic clock, the same in every process of this host. */
export const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;
