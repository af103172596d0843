/**
 * The config layers stay acyclic (docs/adr/0006): the kit imports no svc package, a capability worker imports the
 * kit and the SDK but never @svc/config or the engine, and a worker's `config.ts` (loaded by @svc/config's
 * catalogue) imports nothing but zod and the kit, so loading the catalogue never loads a worker's adapters.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const WORKERS = readdirSync(join(ROOT, 'workers')).filter((d) => statSync(join(ROOT, 'workers', d)).isDirectory());

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** Every module specifier a file imports or re-exports. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(?:import|export)\b[^'"]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

function offenders(dir: string, forbidden: (specifier: string) => boolean): string[] {
  const found: string[] = [];
  for (const file of sources(dir)) {
    for (const spec of importsOf(file)) if (forbidden(spec)) found.push(`${file.slice(ROOT.length + 1)} → ${spec}`);
  }
  return found;
}

describe('config layering', () => {
  it('the kit imports no svc package', () => {
    expect(offenders(join(ROOT, 'config/kit/src'), (s) => s.startsWith('@svc/'))).toEqual([]);
  });

  it('capability workers import the kit, never @svc/config or the engine', () => {
    for (const worker of WORKERS) {
      const bad = offenders(join(ROOT, 'workers', worker, 'src'), (s) => s === '@svc/config' || s === '@svc/engine');
      expect(bad, `workers/${worker}`).toEqual([]);
    }
  });

  it("a worker's config.ts imports only zod and the kit", () => {
    for (const worker of WORKERS) {
      const specs = importsOf(join(ROOT, 'workers', worker, 'src/config.ts'));
      expect(
        specs.filter((s) => s !== 'zod' && s !== '@svc/config-kit'),
        `workers/${worker}/src/config.ts`,
      ).toEqual([]);
    }
  });
});
