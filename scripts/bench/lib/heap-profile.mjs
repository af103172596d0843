// Reading the profiles lib/heap-sampler.mjs writes (V8's sampling heap profiles: a tree of call frames, each with
// the bytes sampled while it was the innermost JavaScript function): bytes in all, and bytes by allocation site.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The name of a profile node's function with its file and line, as `name file:line` (the file's last two parts). */
function frameName(frame) {
  const file = frame.url === '' ? '' : frame.url.split('/').slice(-2).join('/');
  const where = file === '' ? '' : ` ${file}:${frame.lineNumber + 1}`;
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName}${where}`;
}

/** Every sampled byte of a profile (its nodes' `selfSize`, V8's estimate of the bytes allocated there). */
export function allocatedBytes(profile) {
  let total = 0;
  const stack = [profile.head];
  while (stack.length > 0) {
    const node = stack.pop();
    total += node.selfSize;
    stack.push(...node.children);
  }
  return total;
}

/**
 * Bytes by allocation site, most first: a site is the innermost `frames` functions of the stack, innermost last
 * (`outer > inner`), so the same function reached from two callers counts as two sites.
 */
export function allocationSites(profile, frames = 3) {
  const sites = new Map();
  const walk = (node, names) => {
    const path = [...names, frameName(node.callFrame)].slice(-frames);
    if (node.selfSize > 0) {
      const key = path.join(' > ');
      sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, path);
  };
  walk(profile.head, []);
  return [...sites].sort((a, b) => b[1] - a[1]);
}

/** The profile of `pid`'s window `window` in `dir`, once it is written (within `timeoutMs`). */
export async function readProfile(dir, pid, window, timeoutMs = 30_000) {
  const file = join(dir, `${pid}-${window}.heapprofile`);
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} wrote no heap profile for window ${window} in ${dir}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}
