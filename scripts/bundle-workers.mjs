// Part of `npm run build`, after `tsc -b`: bundles each capability worker's `dist/program.js` (with the SDK, the
// config kit, zod and OpenTelemetry) into `workers/<dir>/dist/bundle/program.js`, which the worker's `main.js` runs
// instead: a few files instead of ~450 modules, whose resolving, reading and linking was most of a worker's
// start-up CPU time.
// Native and optional clients (SQLite, Redis, BullMQ, RabbitMQ) and pino and ws stay in node_modules, and modules
// loaded on demand (a store's adapter, the OTLP serializers) stay separate chunks, loaded on demand.
//
// `dist/bundle/inputs.json` records what the bundle was made from, so that a stale bundle is never run
// (config/kit/src/bundle.ts).
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKERS = ['http', 'state', 'queue', 'cron', 'stream', 'observability'];
const EXTERNAL = /^(better-sqlite3|ioredis|bullmq|amqplib|pino|pino-pretty|ws)(\/|$)/;

/**
 * The file whose modification time changes whenever module `id` may have: the package.json of its package in
 * node_modules (rewritten when npm installs another version), else its project's build info, else itself.
 */
function stampOf(id) {
  const dep = id.match(/^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/);
  if (dep) return join(dep[1], 'package.json');
  const at = id.lastIndexOf(`${sep}dist${sep}`);
  const buildInfo = at === -1 ? undefined : join(id.slice(0, at), 'dist', '.tsbuildinfo');
  return buildInfo !== undefined && existsSync(buildInfo) ? buildInfo : id;
}

for (const dir of WORKERS) {
  const program = join(ROOT, 'workers', dir, 'dist', 'program.js');
  const out = join(ROOT, 'workers', dir, 'dist', 'bundle');
  // built beside the current bundle, then swapped in file by file: a worker spawned meanwhile finds a whole bundle
  const next = `${out}.next`;
  rmSync(next, { recursive: true, force: true });
  if (!existsSync(program)) {
    rmSync(out, { recursive: true, force: true });
    continue;
  }
  const bundle = await rolldown({
    input: program,
    platform: 'node',
    external: EXTERNAL,
    logLevel: 'warn',
    // The SDK loads the OTLP serializers on first use; in svc-otel its exporters import them anyway, so that lazy
    // import is simply part of the main chunk there: expected, not worth a warning on every build.
    checks: { ineffectiveDynamicImport: false },
  });
  const { output } = await bundle.write({ dir: next, format: 'esm', sourcemap: true });
  await bundle.close();
  const stamps = new Set();
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    for (const id of chunk.moduleIds) if (!id.startsWith('\0')) stamps.add(stampOf(id));
  }
  const inputs = Object.fromEntries([...stamps].sort().map((file) => [relative(next, file), statSync(file).mtimeMs]));
  writeFileSync(join(next, 'inputs.json'), `${JSON.stringify(inputs, null, 2)}\n`);
  swapIn(next, out);
}

/**
 * Moves the files of `next` over those of `out` one by one (each rename is atomic), then removes the files of
 * `out` the new bundle no longer has: a worker starting meanwhile, or one running the bundle that imports a
 * chunk on demand, finds every file it names (a rebuild from unchanged sources writes the same file names).
 */
function swapIn(next, out) {
  if (!existsSync(out)) return renameSync(next, out);
  const fresh = new Set(readdirSync(next));
  for (const file of fresh) renameSync(join(next, file), join(out, file));
  for (const file of readdirSync(out)) if (!fresh.has(file)) rmSync(join(out, file), { recursive: true, force: true });
  rmSync(next, { recursive: true, force: true });
}
