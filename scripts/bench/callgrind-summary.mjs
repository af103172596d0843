// Where a process's instructions went, from a callgrind dump: self cost per kind of work (JSON, ws, the engine's
// and the SDK's JavaScript, Node.js, V8's builtins, runtime and garbage collector, libc) and per function, divided
// by the calls the window held. `BENCH_INSTR_KEEP=<dir> node scripts/bench/run.mjs instructions` keeps each
// window's dumps and each process's perf map there and prints the command for each process's main thread, e.g.
//
//   node scripts/bench/callgrind-summary.mjs <dir>/callgrind.<pid>.<n>-01 --map <dir>/perf-<pid>.map --calls 1000
//
// JIT-compiled functions are named from the perf map (`--perf-basic-prof`); without one they are counted as code
// not in the map.
import { basename } from 'node:path';
import { summariseDump } from './lib/callgrind-dump.mjs';

const args = process.argv.slice(2);
const option = (flag, fallback) => {
  const at = args.indexOf(flag);
  return at === -1 ? fallback : args.splice(at, 2)[1];
};
const map = option('--map', undefined);
const calls = Number(option('--calls', 1));
const top = Number(option('--top', 30));
if (args.length === 0) {
  console.error('usage: node scripts/bench/callgrind-summary.mjs <dump>... [--map <perf map>] [--calls N] [--top N]');
  process.exit(2);
}
const k = (n) => `${(n / calls / 1000).toFixed(1)}k`.padStart(8);
for (const file of args) {
  const { total, functions, kinds } = summariseDump(file, map);
  console.log(`\n== ${basename(file)}: ${k(total).trim()} instructions per call (${calls} calls)`);
  console.log('   -- by kind of work');
  for (const [kind, cost] of kinds)
    console.log(`${k(cost)}  ${((cost / total) * 100).toFixed(1).padStart(5)}%  ${kind}`);
  console.log(`   -- top ${top} functions by self cost`);
  for (const [name, cost] of functions.slice(0, top))
    console.log(`${k(cost)}  ${((cost / total) * 100).toFixed(1).padStart(5)}%  ${name.slice(0, 140)}`);
}
