// Preloaded into a process under measurement (`node --expose-gc --import <this file> …`, forked with an IPC
// channel): `{ cmd: 'gc' }` runs full garbage collections and answers with the process's memory usage;
// `{ cmd: 'snapshot', path }` collects garbage, writes a heap snapshot to `path` and answers with its name.
import { getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';

function collect() {
  // twice: the first pass may leave finalised objects that only the second frees
  globalThis.gc?.();
  globalThis.gc?.();
}

process.on('message', (msg) => {
  if (msg?.cmd === 'gc') {
    collect();
    process.send?.({ gc: true, memory: process.memoryUsage(), spaces: getHeapSpaceStatistics() });
  } else if (msg?.cmd === 'snapshot') {
    collect();
    process.send?.({ snapshot: writeHeapSnapshot(msg.path) });
  }
});
