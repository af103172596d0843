// Loaded into a bench process with `node --import <this file>`: V8's sampling heap profiler, switched by signals.
// The first SIGUSR2 starts a window, the next ends it and writes what was allocated in it to
// `$BENCH_ALLOC_DIR/<pid>-<window>.heapprofile` (windows counted from 0; written under another name and renamed,
// so a reader never sees half a file). The profile counts every sampled allocation, including the objects the
// garbage collector has already freed: what a process allocated per call, not what it kept.
import { renameSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const dir = process.env.BENCH_ALLOC_DIR;
/** Bytes between samples, on average: V8 samples an object with a chance that grows with its size. */
const INTERVAL = Number(process.env.BENCH_ALLOC_INTERVAL ?? 512);

if (dir !== undefined) {
  const session = new Session();
  session.connect();
  let sampling = false;
  let window = 0;
  const fail = (what, err) => console.error(`heap sampler in process ${process.pid}: ${what}: ${err.message}`);
  process.on('SIGUSR2', () => {
    if (!sampling) {
      sampling = true;
      session.post(
        'HeapProfiler.startSampling',
        {
          samplingInterval: INTERVAL,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        },
        (err) => err && fail('could not start sampling', err),
      );
      return;
    }
    sampling = false;
    const file = join(dir, `${process.pid}-${window++}.heapprofile`);
    session.post('HeapProfiler.stopSampling', (err, answer) => {
      if (err) return fail('could not stop sampling', err);
      writeFileSync(`${file}.part`, JSON.stringify(answer.profile));
      renameSync(`${file}.part`, file);
    });
  });
}
