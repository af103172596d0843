// Sums self time per package, per kind of work (module resolution, compilation, the CommonJS export lexer, file
// system, garbage collection, JavaScript) and per function over .cpuprofile files (node --cpu-prof), e.g. the
// ones `BENCH_PROF=1 node scripts/bench/run.mjs http` writes to bench-results/profiles/. Samples are wall-clock:
// on a loaded machine every figure grows, the shares less so.
//
//   node scripts/bench/profile-summary.mjs bench-results/profiles/svc-http-*.cpuprofile [--top 30]
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt === -1 ? 30 : Number(args.splice(topAt, 2)[1]);

/** The package a script belongs to: node:internals, a node_modules package, or the workspace folder. */
function packageOf(url) {
  if (url === '') return '(native / vm)';
  if (url.startsWith('node:'))
    return url.split('/')[0] === 'node:internal' ? url.split('/').slice(0, 2).join('/') : url;
  const nm = url.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const m = /\/(sdk|engine|workers\/[^/]+|config\/kit|config|scripts)\/(?:dist|src)?\/?/.exec(url);
  return m ? m[1] : url;
}

/** What a sample was doing; start-up profiles are mostly module loading, which this splits by step. */
function kindOf({ url, functionName: f }) {
  if (f === '(garbage collector)') return 'garbage collection';
  if (/wrapSafe|compileSourceTextModule|compileFunction|^\(compile\)$|compileForInternalLoader/.test(f)) {
    return 'compilation';
  }
  if (url.includes('cjs-module-lexer')) return 'CommonJS export lexer';
  if (
    /resolve|realpath|toRealPath|pathToFileURL|fileURLToPath|URL|normalizeString|Stat|stat|readPackage|getPackage/.test(
      f,
    )
  ) {
    return 'module resolution';
  }
  if (!url && /openFileHandle|read|fstat|close/.test(f)) return 'file system';
  if (url.startsWith('node:')) return 'other Node internals';
  return url ? 'JavaScript (packages and svc)' : 'other native';
}

for (const file of args) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  // samples and timeDeltas: each sample's time is the delta that follows it.
  const { samples, timeDeltas } = profile;
  for (let i = 0; i < samples.length; i++) {
    const dt = timeDeltas[i + 1] ?? 0;
    self.set(samples[i], (self.get(samples[i]) ?? 0) + dt);
  }
  let total = 0;
  let idle = 0;
  const fn = new Map();
  const pkg = new Map();
  const kind = new Map();
  for (const [id, us] of self) {
    const { callFrame } = byId.get(id);
    total += us;
    if (callFrame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    const short = callFrame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/');
    const key = `${callFrame.functionName || '(anonymous)'} ${short}:${callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const p = ['(garbage collector)', '(program)'].includes(callFrame.functionName)
      ? callFrame.functionName
      : packageOf(callFrame.url);
    pkg.set(p, (pkg.get(p) ?? 0) + us);
    if (callFrame.functionName !== '(program)') kind.set(kindOf(callFrame), (kind.get(kindOf(callFrame)) ?? 0) + us);
  }
  const busy = total - idle;
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  console.log(`\n== ${basename(file)}: ${(total / 1e6).toFixed(1)} s sampled, busy ${(busy / 1e6).toFixed(1)} s`);
  console.log('-- by package (share of busy time)');
  for (const [k, v] of [...pkg].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${pct(v)}  ${k}`);
  console.log('-- by kind of work');
  for (const [k, v] of [...kind].sort((a, b) => b[1] - a[1])) console.log(`${pct(v)}  ${k}`);
  console.log(`-- top ${top} functions by self time`);
  for (const [k, v] of [...fn].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(v)}  ${k}`);
}
