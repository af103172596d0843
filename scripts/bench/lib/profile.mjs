// Reads a .cpuprofile (node --cpu-prof) into self time per function, per package and per kind of work (module
// resolution, compilation, the CommonJS export lexer, file system, garbage collection, JavaScript). Samples are
// wall-clock: on a loaded machine every figure grows, the shares less so.
import { readFileSync } from 'node:fs';

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

const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);

/**
 * Sums a profile file. Returns µs sampled in all and busy (not idle), and [name, µs] lists sorted by time:
 * `functions` (name, file and line), `packages`, `kinds`.
 */
export function summariseProfile(file) {
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
  return { total, busy: total - idle, functions: sorted(fn), packages: sorted(pkg), kinds: sorted(kind) };
}

/**
 * The summary as lines of text, each figure a share of busy time: the time sampled, the packages (unless
 * `packages` is false), the kinds of work, then the `top` functions.
 */
export function profileLines(summary, { top = 30, packages = true } = {}) {
  const pct = (us) => `${((100 * us) / summary.busy).toFixed(1).padStart(5)}%`;
  return [
    `${(summary.total / 1e6).toFixed(1)} s sampled, busy ${(summary.busy / 1e6).toFixed(1)} s`,
    ...(packages ? ['-- by package', ...summary.packages.slice(0, 15).map(([k, v]) => `${pct(v)}  ${k}`)] : []),
    '-- by kind of work',
    ...summary.kinds.map(([k, v]) => `${pct(v)}  ${k}`),
    `-- top ${top} functions by self time`,
    ...summary.functions.slice(0, top).map(([k, v]) => `${pct(v)}  ${k}`),
  ];
}
