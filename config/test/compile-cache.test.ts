import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileCacheDir } from '../kit/src/compile-cache.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A bundle as scripts/bundle-programs.mjs writes one: CommonJS files that require each other by relative path,
 * node builtins and packages by name.
 */
describe('compile cache', () => {
  let root: string;
  let bundle: string;
  let cache: string;

  const writeBundle = (extra = ''): void => {
    writeFileSync(
      join(bundle, 'program.js'),
      [
        "'use strict';",
        "const { join } = require('node:path');",
        "const chunk = require('./chunk-A1.js');",
        "const again = require('./chunk-A1.js');",
        "const pkg = require('some-package');",
        'const same = chunk === again;',
        `exports.result = { sum: chunk.add(40, 2), same, joined: join('a', 'b'), pkg, strict: chunk.strict }; ${extra}`,
      ].join('\n'),
    );
    writeFileSync(
      join(bundle, 'chunk-A1.js'),
      "'use strict';\nexports.add = (a, b) => a + b;\nexports.strict = (function () { return this === undefined; })();\n",
    );
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-compile-cache-'));
    bundle = join(root, 'dist/bundle');
    cache = join(bundle, '.compile-cache');
    mkdirSync(bundle, { recursive: true });
    // a package the bundle left in node_modules, found from the bundle's directory
    mkdirSync(join(root, 'node_modules/some-package'), { recursive: true });
    writeFileSync(join(root, 'node_modules/some-package/index.js'), "module.exports = 'from node_modules';\n");
    writeBundle();
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /**
   * Loads the bundle's program in a new process (V8 reuses a compile within one process, whatever the cache says)
   * with the cache in `dir` (the bundle's own by default; `off`: none), saves the cache, and reports the program's
   * exports and what each file's compile made of the cache, in load order.
   */
  const load = (dir: string = cache): { exports: unknown; uses: string[] } => {
    const kit = pathToFileURL(join(ROOT, 'config/kit/dist/compile-cache.js')).href;
    const script = [
      `import { BundleLoader } from '${kit}';`,
      `const loader = new BundleLoader(${JSON.stringify(bundle)}, ${dir === 'off' ? 'undefined' : JSON.stringify(dir)});`,
      `const exports = loader.load(${JSON.stringify(join(bundle, 'program.js'))});`,
      'loader.save();',
      'console.log(JSON.stringify({ exports, uses: [...loader.cacheUse.values()] }));',
    ].join('\n');
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(res.status, res.stderr).toBe(0);
    return JSON.parse(res.stdout) as { exports: unknown; uses: string[] };
  };

  it('runs the bundle: one module per file, builtins and packages from Node, strict as written', () => {
    const { exports } = load();
    expect(exports).toEqual({
      result: { sum: 42, same: true, joined: join('a', 'b'), pkg: 'from node_modules', strict: true },
    });
  });

  it('compiles from source once, then from the cache the first run saved', () => {
    const first = load();
    expect(first.uses).toEqual(['missing', 'missing']);
    const saved = readdirSync(cache).sort();
    expect(saved).toHaveLength(2);
    expect(saved[0]).toMatch(new RegExp(`^chunk-A1\\.js\\.\\d+-\\d+-${process.version}-${process.arch}\\.v8$`));

    const before = readdirSync(cache).map((f) => statSync(join(cache, f)).mtimeMs);
    const second = load();
    expect(second.uses).toEqual(['used', 'used']);
    expect(second.exports).toEqual(first.exports);
    // nothing written again: both caches were used
    expect(readdirSync(cache).map((f) => statSync(join(cache, f)).mtimeMs)).toEqual(before);
  });

  it('a changed file is compiled from its source, never from the cache of its earlier text', () => {
    load();
    const program = join(bundle, 'program.js');
    writeFileSync(program, `${readFileSync(program, 'utf8').replace('40, 2', '40, 3')}exports.changed = true;\n`);
    expect(load()).toMatchObject({ exports: { changed: true, result: { sum: 43 } }, uses: ['missing', 'used'] });
    // the earlier text's cache is gone, so the directory does not grow with every build
    expect(readdirSync(cache).filter((f) => f.startsWith('program.js.'))).toHaveLength(1);
    // its cache is the new text's from now on
    expect(load()).toMatchObject({ exports: { result: { sum: 43 } }, uses: ['used', 'used'] });
  });

  it('a damaged cache is refused, the file compiled from source and its cache written again', () => {
    load();
    for (const file of readdirSync(cache)) writeFileSync(join(cache, file), Buffer.from('not a code cache'));
    expect(load()).toMatchObject({ exports: { result: { sum: 42 } }, uses: ['rejected', 'rejected'] });
    expect(load().uses).toEqual(['used', 'used']);
  });

  it('a cache that cannot be written costs nothing but the compile', () => {
    writeFileSync(join(root, 'a-file'), '');
    expect(load(join(root, 'a-file', 'cache'))).toMatchObject({
      exports: { result: { sum: 42 } },
      uses: ['missing', 'missing'],
    });
  });

  it('SVC_COMPILE_CACHE turns the cache off or puts it elsewhere, one directory per bundle', () => {
    expect(compileCacheDir(bundle, {})).toBe(cache);
    expect(compileCacheDir(bundle, { SVC_COMPILE_CACHE: 'off' })).toBeUndefined();
    expect(compileCacheDir(bundle, { SVC_COMPILE_CACHE: '0' })).toBeUndefined();
    const elsewhere = compileCacheDir(bundle, { SVC_COMPILE_CACHE: join(root, 'cc') })!;
    expect(elsewhere.startsWith(join(root, 'cc'))).toBe(true);
    expect(elsewhere).not.toBe(compileCacheDir(join(root, 'other'), { SVC_COMPILE_CACHE: join(root, 'cc') }));
    expect(load('off').uses).toEqual(['off', 'off']);
  });

  it('runBundle writes the cache when the process exits, and an error names the bundle file', () => {
    const kit = pathToFileURL(join(ROOT, 'config/kit/dist/compile-cache.js')).href;
    const script = `import { runBundle } from '${kit}'; runBundle(${JSON.stringify(join(bundle, 'program.js'))});`;
    const run = () => spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    const first = run();
    expect(first.status, first.stderr).toBe(0);
    expect(readdirSync(cache)).toHaveLength(2);
    writeFileSync(join(bundle, 'chunk-A1.js'), "'use strict';\nthrow new Error('broken chunk');\n");
    const broken = run();
    expect(broken.status).not.toBe(0);
    expect(broken.stderr).toContain('broken chunk');
    expect(broken.stderr).toContain(join(bundle, 'chunk-A1.js'));
    expect(readFileSync(join(bundle, 'program.js'), 'utf8')).toContain("require('./chunk-A1.js')");
  });
});
