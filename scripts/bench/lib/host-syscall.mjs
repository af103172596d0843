// What a system call costs on this host, measured from Node.js. Reading `process.ppid` makes a getppid(2) call
// every time (libuv keeps no copy), reading `process.pid` makes none, so the difference per read is the price of a
// trip into the kernel and back with Node's binding around it. It depends on the host's kernel and CPU (page-table
// isolation, CPU buffers cleared at every return to user space), and the rows whose floor or peer is mostly system
// calls depend on it: the bare HTTP server beside svc-http spends most of its time in them. run.mjs prints the
// figure at the top of each run and keeps it in the JSON, so that runs on different hosts can be told apart; it is
// read once, before the first script, and does not follow a host whose speed changes from one minute to the next.

/**
 * Nanoseconds per system call made from Node.js: the best of `rounds` rounds of `reads` reads each. `time(read,
 * reads)` gives the ns per call of `read` (a test passes its own).
 */
export function systemCallNs({ reads = 100_000, rounds = 5, time = timeReads } = {}) {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const withCall = time(() => process.ppid, reads);
    const without = time(() => process.pid, reads);
    best = Math.min(best, withCall - without);
  }
  return Math.max(0, best);
}

/** `a system call from Node.js costs 612 ns (process.ppid against process.pid)` */
export function describeSystemCall(ns) {
  return `a system call from Node.js costs ${Math.round(ns)} ns (process.ppid against process.pid)`;
}

function timeReads(read, reads) {
  let sink = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < reads; i++) sink += read();
  const ns = Number(process.hrtime.bigint() - start) / reads;
  if (sink === -1) console.log(sink); // keeps the reads from being optimised away
  return ns;
}
