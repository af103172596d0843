// The caller side shared by every invoke bench role: sequential latency and throughput at a fixed number of
// outstanding calls, driven by the parent over IPC ({ cmd: 'seq', n, size, warm? (unmeasured calls first, default
// 200) } | { cmd: 'tput', concurrency, ms, size, warmMs? (unmeasured calls first, default 200) } | { cmd: 'tput',
// concurrency, calls, size, warmMs: 0 }: exactly `calls` calls, however long they take).

export function payload(size) {
  return { s: 'x'.repeat(Math.max(0, size - 8)) };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/** Drives `call` sequentially and at a fixed number of outstanding calls; answers the parent over IPC. */
export function serve(call) {
  process.on('message', async (cmd) => {
    const data = payload(cmd.size);
    if (cmd.cmd === 'seq') {
      const warm = cmd.warm ?? Math.min(200, cmd.n);
      for (let i = 0; i < warm; i++) await call(data); // unmeasured
      const samples = new Float64Array(cmd.n);
      for (let i = 0; i < cmd.n; i++) {
        const t0 = process.hrtime.bigint();
        await call(data);
        samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
      }
      samples.sort();
      process.send({ p50: percentile(samples, 50), p99: percentile(samples, 99) });
    } else if (cmd.cmd === 'tput') {
      let done = 0;
      const warmEnd = Date.now() + (cmd.warmMs ?? 200);
      while (Date.now() < warmEnd) await Promise.all(Array.from({ length: cmd.concurrency }, () => call(data)));
      const start = process.hrtime.bigint();
      const end = Date.now() + cmd.ms;
      let started = 0;
      const more = cmd.calls === undefined ? () => Date.now() < end : () => started++ < cmd.calls;
      const lane = async () => {
        while (more()) {
          await call(data);
          done++;
        }
      };
      await Promise.all(Array.from({ length: cmd.concurrency }, lane));
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      process.send({ perSecond: done / seconds });
    }
  });
  process.send({ ready: true });
}
