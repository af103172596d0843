// Sums self time per package, per kind of work (module resolution, compilation, the CommonJS export lexer, file
// system, garbage collection, JavaScript) and per function over .cpuprofile files (node --cpu-prof), e.g. the
// ones every `npm run bench` keeps in bench-results/profiles/<run>/ or `BENCH_PROF=1 node scripts/bench/run.mjs
// http` writes to bench-results/profiles/. Samples are wall-clock: on a loaded machine every figure grows, the
// shares less so.
//
//   node scripts/bench/profile-summary.mjs bench-results/profiles/svc-http-*.cpuprofile [--top 30]
import { basename } from 'node:path';
import { profileLines, summariseProfile } from './lib/profile.mjs';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt === -1 ? 30 : Number(args.splice(topAt, 2)[1]);

for (const file of args) {
  const [first, ...rest] = profileLines(summariseProfile(file), { top });
  console.log(`\n== ${basename(file)}: ${first}`);
  for (const line of rest) console.log(line);
}
