/**
 * The core is a router with no I/O (docs/architecture.md): it may import the wire types and defaults of
 * `@svc/sdk` (or its `@svc/sdk/core` entry) and its own files, nothing else: no module, no transport, no `ws`,
 * `msgpackr`, `pino` or Node module.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = resolve(import.meta.dirname, '../src/core');

/** Every module specifier in `import … from`, `export … from`, `import('…')` and `require('…')`. */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,]+?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of source.matchAll(pattern)) found.push(m[1]!);
  return found;
}

function allowed(specifier: string): boolean {
  if (specifier === '@svc/sdk' || specifier === '@svc/sdk/core') return true;
  return specifier.startsWith('./') && !specifier.includes('..');
}

describe('engine core boundaries', () => {
  const files = readdirSync(CORE).filter((f) => f.endsWith('.ts'));

  it('finds the core sources', () => {
    expect(files.length).toBeGreaterThan(5);
    expect(specifiers("import x from 'ws';\nexport { y } from '../modules/a.js';")).toEqual(['ws', '../modules/a.js']);
  });

  it('imports only @svc/sdk and its own files', () => {
    const offending: string[] = [];
    for (const file of files) {
      const source = readFileSync(join(CORE, file), 'utf8');
      for (const s of specifiers(source)) if (!allowed(s)) offending.push(`${file}: ${s}`);
    }
    expect(offending).toEqual([]);
  });

  it('names no capability (no engine:: function id in code)', () => {
    const offending: string[] = [];
    for (const file of files) {
      const code = readFileSync(join(CORE, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const m of code.matchAll(/['"`](engine::[\w:-]+)['"`]/g)) offending.push(`${file}: ${m[1]}`);
    }
    expect(offending).toEqual([]);
  });
});
