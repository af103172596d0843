/**
 * `svc init <dir> [--name n] [--force]`: writes a TypeScript worker project (package.json, tsconfig.json,
 * src/worker.ts with a function and an HTTP trigger, dev.mjs for `npm run dev`, svc-config.yaml, README.md).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative, resolve } from 'node:path';
import { EXIT, UsageError } from '../exit-codes.js';
import * as templates from '../init/templates.js';

export interface InitArgs {
  dir: string;
  name: string | undefined;
  force: boolean;
}

export function initCommand(args: InitArgs): Promise<number> {
  const dir = resolve(args.dir);
  if (existsSync(dir) && readdirSync(dir).length > 0 && !args.force) {
    throw new UsageError(`${args.dir} is not empty; choose a new directory or pass --force`);
  }
  const name = args.name ?? basename(dir);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
    throw new UsageError(`"${name}" is not a valid package name (lowercase letters, digits, . _ -); pass --name`);
  }
  const ctx = { name, prefix: name.replace(/[^a-z0-9]+/g, '_'), sdkVersion: sdkVersion() };
  const files: Record<string, string> = {
    'package.json': templates.packageJson(ctx),
    'tsconfig.json': templates.TSCONFIG,
    'src/worker.ts': templates.workerSource(ctx),
    'dev.mjs': templates.DEV_SCRIPT,
    'svc-config.yaml': templates.svcConfig(ctx),
    'README.md': templates.readme(ctx),
    '.gitignore': templates.GITIGNORE,
  };
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  const rel = relative(process.cwd(), dir);
  const shown = rel === '' ? '.' : rel.startsWith('..') ? dir : rel;
  process.stdout.write(
    `created ${shown}: ${Object.keys(files).join(', ')}\n\nnext:\n  cd ${shown}\n  npm install\n  npm run dev\n`,
  );
  return Promise.resolve(EXIT.ok);
}

/** The SDK version this CLI ships with (the scaffold depends on it). */
function sdkVersion(): string {
  try {
    const file = createRequire(import.meta.url).resolve('@svc/sdk/package.json');
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? pkg.version : '0.1.0';
  } catch {
    return '0.1.0';
  }
}
