/**
 * Where a capability worker's entry point is: `workers/<dir>/dist/main.js` of this checkout (the monorepo layout),
 * else `@svc/worker-<dir>/dist/main.js` in a `node_modules` above the engine (an installed package).
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** engine/dist/modules → the engine package root. */
const ENGINE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function workerMainCandidates(dir: string, engineRoot = ENGINE_ROOT): string[] {
  const candidates = [join(engineRoot, '..', 'workers', dir, 'dist', 'main.js')];
  for (let at = engineRoot; ;) {
    candidates.push(join(at, 'node_modules', '@svc', `worker-${dir}`, 'dist', 'main.js'));
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  return candidates;
}

/** The first existing entry point, or undefined when the worker is not built / not installed. */
export function findWorkerMain(dir: string, engineRoot = ENGINE_ROOT): string | undefined {
  return workerMainCandidates(dir, engineRoot).find((p) => existsSync(p));
}
