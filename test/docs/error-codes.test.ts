/**
 * docs/errors.md and the packages' error catalogues list the same codes. Every workspace package declares its codes
 * in `<package>/src/error-codes.ts` (frozen maps of `Name: 'code'`); the docs list them in the first column of their
 * tables. A code added to a catalogue without a line in the docs fails here, and so does a documented code that no
 * package produces any more.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function workspaces(): string[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] };
  return manifest.workspaces;
}

const catalogueFile = (workspace: string): string => join(ROOT, workspace, 'src/error-codes.ts');

/** Every string value of every map a catalogue module exports, with the export that declares it. */
async function catalogueCodes(workspace: string): Promise<Map<string, string>> {
  const module = (await import(pathToFileURL(catalogueFile(workspace)).href)) as Record<string, unknown>;
  const codes = new Map<string, string>();
  for (const [name, value] of Object.entries(module)) {
    if (typeof value !== 'object' || value === null) continue;
    for (const [key, code] of Object.entries(value)) {
      if (typeof code === 'string') codes.set(code, `${workspace}: ${name}.${key}`);
    }
  }
  return codes;
}

/** The codes of docs/errors.md: the backticked names in the first cell of every table row. */
function documentedCodes(): Set<string> {
  const docs = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  const codes = new Set<string>();
  for (const line of docs.split('\n')) {
    const row = /^\|([^|]*)\|/.exec(line);
    if (row === null) continue;
    for (const m of row[1]!.matchAll(/`([^`]+)`/g)) codes.add(m[1]!);
  }
  return codes;
}

describe('error catalogues and docs/errors.md', () => {
  it('every workspace package has an error catalogue', () => {
    const missing = workspaces().filter((ws) => !existsSync(catalogueFile(ws)));
    expect(missing, 'add <package>/src/error-codes.ts (an empty frozen map if it produces no code)').toEqual([]);
  });

  it('each catalogue maps names to stable codes', async () => {
    for (const ws of workspaces()) {
      const module = (await import(pathToFileURL(catalogueFile(ws)).href)) as Record<string, unknown>;
      const maps = Object.entries(module).filter(([, v]) => typeof v === 'object' && v !== null);
      expect(maps.length, `${ws} exports no code map`).toBeGreaterThan(0);
      for (const [name, map] of maps) {
        for (const code of Object.values(map as object)) {
          expect(code, `${ws}: ${name}`).toMatch(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$/);
        }
      }
    }
  });

  it('documents every code of every catalogue, and no other', async () => {
    const declared = new Map<string, string>();
    for (const ws of workspaces()) for (const [code, where] of await catalogueCodes(ws)) declared.set(code, where);
    const documented = documentedCodes();

    const undocumented = [...declared].filter(([code]) => !documented.has(code)).map(([c, w]) => `${c} (${w})`);
    expect(undocumented, 'add these codes to a table of docs/errors.md').toEqual([]);
    const unknown = [...documented].filter((code) => !declared.has(code));
    expect(unknown, 'docs/errors.md lists codes no catalogue declares: remove them or add them to a catalogue').toEqual(
      [],
    );
  });
});
