/**
 * The SDK as someone outside this repository gets it: `npm pack` of sdk/ into a tarball, installed into a fresh
 * temporary project with `npm install <tarball> --prefer-offline` (the npm registry is the only network used).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../harness.js';

const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

/** Packs sdk/ (already built) and returns the tarball's path. */
export function packSdk(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sdk-pack-'));
  execFileSync('npm', ['pack', '--pack-destination', dir, '--ignore-scripts', '--loglevel=error'], {
    cwd: join(ROOT, 'sdk'),
    stdio: 'pipe',
  });
  const tarball = readdirSync(dir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${dir}`);
  return join(dir, tarball);
}

/** `npm install <packages>` in `dir` (a project outside the repository). */
export function npmInstall(dir: string, packages: string[] = []): void {
  execFileSync('npm', ['install', ...packages, ...NPM_FLAGS], { cwd: dir, stdio: 'pipe', timeout: 240_000 });
}

/** A fresh project directory with a package.json. */
export function tempProject(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }, null, 2));
  return dir;
}
