/**
 * Runs a program's bundle (CommonJS files, scripts/bundle-programs.mjs) with V8's code cache: each file of the
 * bundle is compiled with the bytecode an earlier run of the same file left in the cache directory, so a start
 * parses and compiles only what it has not run before. Node 20 has no compile cache of its own for a program's
 * modules (`module.enableCompileCache` came with Node 22.1) and none at all for ES modules, hence CommonJS bundles.
 *
 * A file's cache is written once the process has run for a moment and again when it exits, so it holds the
 * functions the start-up and the first work compiled (a cache taken right after the compile would hold only the
 * top level). It is keyed by the file's size and modification time and by Node's version and architecture; V8
 * itself refuses data made by another V8 or with other flags, and such a file is compiled from its source and its
 * cache written again. A cache that cannot be read or written (a read-only install) costs nothing but the
 * compile. `SVC_COMPILE_CACHE=off` turns it off; `SVC_COMPILE_CACHE=<dir>` puts it in another directory.
 * Imports nothing but node builtins.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { Script } from 'node:vm';

/** Where the bundle's rewritten `import()` calls find an import done from an ES module. */
const IMPORT_HOOK = Symbol.for('svc.import');

/** How long after its start a process writes the cache of what it has compiled (and again at its exit). */
const FIRST_WRITE_MS = 3000;

/** The directory a bundle's cache goes to, or undefined when `SVC_COMPILE_CACHE=off` (or `0`, `false`). */
export function compileCacheDir(bundleDir: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.SVC_COMPILE_CACHE?.trim();
  if (setting === undefined || setting === '') return join(bundleDir, '.compile-cache');
  if (['off', '0', 'false'].includes(setting.toLowerCase())) return undefined;
  // one directory per bundle: every bundle has a program.js, and chunks of the same name may differ
  return join(resolve(setting), resolve(bundleDir).replace(/[\\/:]+/g, '_'));
}

type ModuleFunction = (
  exports: unknown,
  require: NodeJS.Require,
  module: Module,
  filename: string,
  dirname: string,
) => void;

/** What a file's load made of its cache: used, none yet, refused by V8 (compiled from source), or turned off. */
export type CacheUse = 'used' | 'missing' | 'rejected' | 'off';

interface Unsaved {
  script: Script;
  cacheFile: string;
  /** The bundle file it is the cache of. */
  source: string;
}

/**
 * Loads the CommonJS files of one bundle directory: a file of the bundle that requires another (`./chunk.js`) gets
 * it from here, compiled with its cache; anything else it requires (node builtins, packages left in node_modules)
 * goes to Node's own `require`, resolved from the file's directory.
 */
export class BundleLoader {
  private readonly modules = new Map<string, Module>();
  private readonly unsaved: Unsaved[] = [];
  /** Each file loaded so far (absolute path) and what its compile made of the cache. */
  readonly cacheUse = new Map<string, CacheUse>();
  private readonly dir: string;

  constructor(
    dir: string,
    private readonly cacheDir: string | undefined,
  ) {
    this.dir = resolve(dir) + sep;
    // A script compiled from a code cache cannot `import()` on Node 20 (its link to the ES module loader is not in
    // the cache); the bundle's run-time imports call this instead (scripts/bundle/dynamic-import.mjs).
    (globalThis as Record<symbol, unknown>)[IMPORT_HOOK] ??= (specifier: string): Promise<unknown> => import(specifier);
  }

  /** Runs `file` (a file of the bundle) once and returns its exports; a second call returns the same exports. */
  load(file: string, parent?: Module): unknown {
    const filename = resolve(file);
    const known = this.modules.get(filename);
    if (known !== undefined) return known.exports;
    const module = new Module(filename, parent);
    module.filename = filename;
    module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(
      dirname(filename),
    );
    this.modules.set(filename, module);
    const run = this.compile(filename).runInThisContext({ displayErrors: true }) as ModuleFunction;
    run.call(module.exports, module.exports, this.requireFor(module), module, filename, dirname(filename));
    module.loaded = true;
    return module.exports;
  }

  /** Writes the cache of each file compiled without one (or whose cache V8 refused). */
  save(): void {
    if (this.cacheDir === undefined || this.unsaved.length === 0) return;
    try {
      mkdirSync(this.cacheDir, { recursive: true });
      const present = readdirSync(this.cacheDir);
      for (const { script, cacheFile, source } of this.unsaved) {
        // written beside, then renamed over: a process starting meanwhile reads a whole file or none
        const partial = `${cacheFile}.${process.pid}.partial`;
        writeFileSync(partial, script.createCachedData());
        renameSync(partial, cacheFile);
        // the caches of the file's earlier versions (a directory set by SVC_COMPILE_CACHE outlives rebuilds)
        const earlier = `${basename(source)}.`;
        for (const file of present) {
          if (file.startsWith(earlier) && file.endsWith('.v8') && join(this.cacheDir, file) !== cacheFile) {
            rmSync(join(this.cacheDir, file), { force: true });
          }
        }
      }
    } catch {
      // a read-only install, a full disk: the next start compiles from source, as without a cache
    }
  }

  private compile(filename: string): Script {
    const source = readFileSync(filename, 'utf8');
    const cacheFile = this.cacheFileOf(filename);
    let cachedData: Buffer | undefined;
    if (cacheFile !== undefined) {
      try {
        cachedData = readFileSync(cacheFile);
      } catch {
        // not written yet
      }
    }
    const script = new Script(Module.wrap(source), { filename, cachedData });
    const use: CacheUse =
      cacheFile === undefined
        ? 'off'
        : cachedData === undefined
          ? 'missing'
          : script.cachedDataRejected
            ? 'rejected'
            : 'used';
    this.cacheUse.set(filename, use);
    if (cacheFile !== undefined && use !== 'used') this.unsaved.push({ script, cacheFile, source: filename });
    return script;
  }

  private cacheFileOf(filename: string): string | undefined {
    if (this.cacheDir === undefined) return undefined;
    const { size, mtimeMs } = statSync(filename);
    const key = `${size}-${Math.round(mtimeMs)}-${process.version}-${process.arch}`;
    return join(this.cacheDir, `${basename(filename)}.${key}.v8`);
  }

  private requireFor(module: Module): NodeJS.Require {
    const nodeRequire = createRequire(module.filename);
    const from = dirname(module.filename);
    const bundleRequire = ((id: string) => {
      if (id.startsWith('./') || id.startsWith('../')) {
        const target = resolve(from, id);
        if (target.startsWith(this.dir) && target.endsWith('.js')) return this.load(target, module);
      }
      return nodeRequire(id) as unknown;
    }) as NodeJS.Require;
    bundleRequire.resolve = nodeRequire.resolve;
    bundleRequire.cache = nodeRequire.cache;
    bundleRequire.extensions = nodeRequire.extensions;
    bundleRequire.main = nodeRequire.main;
    return bundleRequire;
  }
}

/**
 * Runs `program` (the entry file of a CommonJS bundle) with the code cache of its directory (`compileCacheDir`),
 * and writes that cache a moment after the start and at the process's exit.
 */
export function runBundle(program: string, env: NodeJS.ProcessEnv = process.env): void {
  const dir = dirname(resolve(program));
  const loader = new BundleLoader(dir, compileCacheDir(dir, env));
  process.once('exit', () => loader.save());
  setTimeout(() => loader.save(), FIRST_WRITE_MS).unref();
  loader.load(program);
}
