/**
 * `@svc/config-kit/bundle`: how an executable's `main.js` (the `svc` command's and each capability worker's) picks
 * what to run. `npm run build` bundles each `dist/program.js` (with the SDK, the config kit, zod, the engine for
 * the `svc` command, OpenTelemetry for the workers) into `dist/bundle/program.js` (scripts/bundle-programs.mjs),
 * which starts with far less module loading than the hundreds of modules it is made of. `dist/bundle/inputs.json`
 * records what it was made from: the build-info file of each TypeScript project it took modules from (`tsc -b`
 * rewrites one whenever it builds that project) and the package.json of each package it took from node_modules,
 * with their modification times. The bundle runs only while they all still match, so after a plain `tsc -b` the
 * executable runs `dist/program.js`, never a stale bundle. The bundle is CommonJS, run with V8's code cache
 * (compile-cache.ts). Imports nothing but node builtins.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runBundle } from './compile-cache.js';

/**
 * Turns off V8's allocation-site pretenuring for this process; called by an executable's `main.js` before its
 * program loads. A router's objects live for one call, but after a moment in which calls outlived a few
 * young-generation collections (a busy machine), V8 went on allocating the call path's objects in the old
 * generation for the life of the process: svc-http then collected its old generation every second or two and
 * spent 32-35 µs of CPU per request instead of 24-25, the engine 39-55 µs per queued job instead of 34-36
 * (docs/performance.md, "Requests kept out of the old generation").
 */
export function withoutPretenuring(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}

/**
 * Why this process runs `program.js` rather than its bundle, once `currentProgram` decided (a sentence naming the
 * input that changed, or saying there is no bundle); undefined while it runs the bundle. The `svc` command prints
 * it with its ready banner: loading the program's modules one by one costs start-up time (docs/performance.md,
 * "The `svc` command bundled").
 */
let unbundled: string | undefined;

/** Why `currentProgram` chose `program.js` (undefined: it chose the bundle, or was not called in this process). */
export function whyUnbundled(): string | undefined {
  return unbundled;
}

/**
 * The URL of the module an executable's `main.js` (at `mainUrl`) should import: `./bundle/program.js` when it is
 * current, else `./program.js`.
 */
export function currentProgram(mainUrl: string): string {
  const dist = dirname(fileURLToPath(mainUrl));
  const bundle = bundleState(join(dist, 'bundle'));
  unbundled = bundle.stale;
  return pathToFileURL(bundle.program ?? join(dist, 'program.js')).href;
}

/**
 * Runs the program of the executable whose `main.js` is at `mainUrl`: its bundle when it is current (CommonJS, with
 * the code cache: compile-cache.ts), else `./program.js` (ES modules, imported).
 */
export async function runProgram(mainUrl: string): Promise<void> {
  const url = currentProgram(mainUrl);
  if (unbundled === undefined) runBundle(fileURLToPath(url));
  else await import(url);
}

/**
 * `<dir>/program.js` when `<dir>/inputs.json` lists files that all still have the recorded modification times,
 * else why not. `npm run build` asks the same before it bundles a program again (scripts/bundle-programs.mjs).
 */
export function bundleState(
  dir: string,
): { program: string; stale?: undefined } | { program?: undefined; stale: string } {
  let inputs: Record<string, number>;
  try {
    inputs = JSON.parse(readFileSync(join(dir, 'inputs.json'), 'utf8')) as Record<string, number>;
  } catch {
    return { stale: `there is no bundle in ${dir}` };
  }
  for (const [file, mtimeMs] of Object.entries(inputs)) {
    const path = resolve(dir, file);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat === undefined) return { stale: `${path}, which the bundle was built from, is gone` };
    if (stat.mtimeMs !== mtimeMs) return { stale: `${path} changed after the bundle was built` };
  }
  const program = join(dir, 'program.js');
  return existsSync(program) ? { program } : { stale: `${program} is missing` };
}
