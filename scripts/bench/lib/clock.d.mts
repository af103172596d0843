/** Milliseconds on the machine's monotonic clock, the same in every process of this host. */
export function monotonicMs(): number;
