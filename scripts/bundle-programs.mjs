// Part of `npm run build`, after `tsc -b`: bundles the `dist/program.js` of the `svc` command (with the engine, the
// config pipeline, the SDK's core, zod, yaml, pino and ws) and of each capability worker (with the SDK, the config
// kit, zod, OpenTelemetry, pino and ws) into `dist/bundle/program.js`, which the executable's `main.js` runs
// instead: a few files instead of hundreds of modules, whose resolving, reading and linking was most of a
// process's start-up CPU time. Native and optional clients (SQLite, Redis, BullMQ, RabbitMQ) and pino-pretty stay
// in node_modules (required, as the bundle is CommonJS), so do ws's optional native helpers
// (bufferutil, utf-8-validate: ws requires them in a try, and uses them when installed), and modules loaded on
// demand (a store's adapter, the OTLP serializers, the YAML parser, a command of `svc`) stay separate chunks,
// loaded on demand.
//
// A bundled module keeps its own `import.meta.url` (rewritten relative to the bundle), so what it reads beside
// itself (the embedded config, the console's web files, package.json) is found where it was.
//
// `dist/bundle/inputs.json` records what the bundle was made from, so that a stale bundle is never run
// (config/kit/src/bundle.ts). A bundle that is still current, and was made by this same bundler (`bundler.json`:
// a hash of these scripts and the bundler's version), is left as it is: a build that changed nothing (`npm start`
// builds first) keeps the bundle's files, and with them the code cache its earlier starts wrote beside them.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleState } from '@svc/config-kit/bundle';
import { rolldown } from 'rolldown';
import { dynamicImportPlugin } from './bundle/dynamic-import.mjs';
import { moduleUrlPlugin } from './bundle/module-url.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUNDLER = JSON.stringify({ bundler: bundlerHash() });
const PROGRAMS = [
  'cli',
  ...['http', 'state', 'queue', 'cron', 'stream', 'observability'].map((worker) => join('workers', worker)),
];
const EXTERNAL = /^(better-sqlite3|ioredis|bullmq|amqplib|pino-pretty|bufferutil|utf-8-validate)(\/|$)/;

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

for (const dir of PROGRAMS) {
  const program = join(ROOT, dir, 'dist', 'program.js');
  const out = join(ROOT, dir, 'dist', 'bundle');
  // built beside the current bundle, then swapped in file by file: a process started meanwhile finds a whole bundle
  const next = `${out}.next`;
  rmSync(next, { recursive: true, force: true });
  if (!existsSync(program)) {
    rmSync(out, { recursive: true, force: true });
    continue;
  }
  if (bundleState(out).stale === undefined && readText(join(out, 'bundler.json')) === BUNDLER) continue;
  const bundle = await rolldown({
    input: program,
    platform: 'node',
    external: (id) => EXTERNAL.test(id),
    // A package with both (OpenTelemetry's) is taken as its ES modules, which the bundler hoists into one scope and
    // trims, rather than as CommonJS modules each wrapped in a function that runs when first required.
    resolve: { mainFields: ['module', 'main'] },
    logLevel: 'warn',
    plugins: [moduleUrlPlugin(out), dynamicImportPlugin()],
    // The SDK loads the OTLP serializers on first use; in svc-otel its exporters import them anyway, so that lazy
    // import is simply part of the main chunk there: expected, not worth a warning on every build.
    checks: { ineffectiveDynamicImport: false },
  });
  // CommonJS, so that config/kit/src/compile-cache.ts can run it with V8's code cache (Node 20 caches no ES
  // module); strict, as the ES modules it is made of are. Doc comments left out and other characters escaped: a
  // file that is all ASCII is read into a one-byte string (half the memory of one with a single `→`, and no UTF-8
  // decoding), and every process start reads, holds and hashes these files. License comments stay.
  const { output } = await bundle.write({
    dir: next,
    format: 'cjs',
    banner: "'use strict';",
    sourcemap: true,
    comments: { legal: true, annotation: false, jsdoc: false },
    charset: 'ascii',
  });
  await bundle.close();
  const stamps = new Set();
  for (const chunk of output) {
    if (chunk.type !== 'chunk') continue;
    for (const id of chunk.moduleIds) if (!id.startsWith('\0')) stamps.add(stampOf(id));
  }
  const inputs = Object.fromEntries([...stamps].sort().map((file) => [relative(next, file), statSync(file).mtimeMs]));
  writeFileSync(join(next, 'inputs.json'), `${JSON.stringify(inputs, null, 2)}\n`);
  // the packages are ES modules ("type": "module"); the bundle's files are not
  writeFileSync(join(next, 'package.json'), '{ "type": "commonjs" }\n');
  writeFileSync(join(next, 'bundler.json'), BUNDLER);
  swapIn(next, out);
}

/** A hash of this script, the plugins it uses and the bundler's version: a bundle made otherwise is made again. */
function bundlerHash() {
  const hash = createHash('sha256');
  for (const script of ['bundle-programs.mjs', 'bundle/dynamic-import.mjs', 'bundle/module-url.mjs']) {
    hash.update(readFileSync(join(ROOT, 'scripts', script)));
  }
  const rolldownPackage = createRequire(import.meta.url).resolve('rolldown/package.json');
  hash.update(JSON.parse(readFileSync(rolldownPackage, 'utf8')).version);
  return hash.digest('hex');
}

function readText(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
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
