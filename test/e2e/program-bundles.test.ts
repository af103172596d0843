/**
 * The bundles `npm run build` makes of the `svc` command and of each capability worker (scripts/bundle-programs.mjs):
 * each executable runs its bundle after a build, and a bundled module still finds the files beside the module it
 * was made from (its `import.meta.url` is the original's), while the same words inside a string stay as written.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAst } from 'rolldown/parseAst';
import { pathToFileURL } from 'node:url';
import { rolldown, type InputOptions } from 'rolldown';
import { afterEach, describe, expect, it } from 'vitest';
import { currentProgram } from '../../config/kit/src/bundle.js';
import { dynamicImportPlugin } from '../../scripts/bundle/dynamic-import.mjs';
import { moduleUrlPlugin } from '../../scripts/bundle/module-url.mjs';
import { ROOT, freePort, waitFor } from '../harness.js';

/** Bundles `<dir>/src/entry.js` into `<dir>/out/bundle` in `format`, with `options` (plugins, externals). */
async function bundleEntry(dir: string, format: 'esm' | 'cjs', options: Partial<InputOptions>): Promise<string> {
  const out = join(dir, 'out/bundle');
  const bundle = await rolldown({ input: join(dir, 'src/entry.js'), platform: 'node', logLevel: 'silent', ...options });
  await bundle.write({ dir: out, format });
  await bundle.close();
  return out;
}

const EXECUTABLES = [
  'cli',
  ...['http', 'state', 'queue', 'cron', 'stream', 'observability'].map((w) => `workers/${w}`),
];

describe('program bundles', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it.each(EXECUTABLES)('%s/dist/main.js runs its bundle after a build', (executable) => {
    const main = pathToFileURL(join(ROOT, executable, 'dist/main.js')).href;
    // `npm test` builds first; after a plain `tsc -b` the bundles are stale until `npm run build` remakes them
    expect(currentProgram(main), 'stale bundle: run npm run build').toBe(
      pathToFileURL(join(ROOT, executable, 'dist/bundle/program.js')).href,
    );
  });

  it.each(EXECUTABLES)('%s/dist/bundle is strict CommonJS, with the files it requires beside it', (executable) => {
    const dir = join(ROOT, executable, 'dist/bundle');
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))).toEqual({ type: 'commonjs' });
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text.startsWith('"use strict";'), file).toBe(true);
      for (const [, chunk] of text.matchAll(/(?:= |=> )require\("\.\/([^"]+)"\)/g))
        expect(existsSync(join(dir, chunk!))).toBe(true);
    }
  });

  it.each(EXECUTABLES)('%s/dist/bundle is ASCII outside license comments (read as one-byte strings)', (executable) => {
    const dir = join(ROOT, executable, 'dist/bundle');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
      // the legal comments the bundler keeps: `/*! … */`, a block comment naming @license or @preserve, `//! …`
      const code = readFileSync(join(dir, file), 'utf8')
        .replace(/\/\*(?:!|(?:(?!\*\/)[\s\S])*?@(?:license|preserve))[\s\S]*?\*\//g, '')
        .replace(/\/\/!.*/g, '');
      expect(code.match(/[\u0080-\uffff].{0,40}/)?.[0], file).toBeUndefined();
    }
  });

  it.each(EXECUTABLES)(
    '%s/dist/bundle imports at run time only through the hook a cached script can use',
    (executable) => {
      const dir = join(ROOT, executable, 'dist/bundle');
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
        const imports: string[] = [];
        const walk = (node: unknown, inHook: boolean): void => {
          if (Array.isArray(node)) return node.forEach((n) => walk(n, inHook));
          if (node === null || typeof node !== 'object') return;
          const n = node as { type?: string; id?: { name?: string } };
          const hook = inHook || (n.type === 'FunctionDeclaration' && n.id?.name?.startsWith('__svcImport') === true);
          if (n.type === 'ImportExpression' && !hook) imports.push(JSON.stringify(node).slice(0, 200));
          for (const key in n) if (key !== 'parent') walk((n as Record<string, unknown>)[key], hook);
        };
        walk(parseAst(readFileSync(join(dir, file), 'utf8')), false);
        expect(imports, file).toEqual([]);
      }
    },
  );

  it('svc writes the code cache of what it ran when it exits, and a second run uses it', () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-compile-cache-'));
    const env = { ...process.env, SVC_COMPILE_CACHE: dir };
    const run = () =>
      spawnSync(process.execPath, [join(ROOT, 'cli/dist/main.js'), '--version'], { encoding: 'utf8', env });
    expect(run().status).toBe(0);
    const [bundleDir] = readdirSync(dir);
    const cached = readdirSync(join(dir, bundleDir!));
    expect(cached.some((f) => f.startsWith('program.js.'))).toBe(true);
    const stamps = cached.map((f) => statSync(join(dir!, bundleDir!, f)).mtimeMs);
    const again = run();
    expect(again.stdout).toMatch(/^svc \d/);
    // every cache was used, so none was written again
    expect(readdirSync(join(dir, bundleDir!)).map((f) => statSync(join(dir!, bundleDir!, f)).mtimeMs)).toEqual(stamps);
  });

  it('a build that changed nothing leaves every bundle, and the code cache beside it, as it was', () => {
    // `npm start` builds first: a rebundle would cost every start its bundling and its code cache
    const program = (executable: string) => join(ROOT, executable, 'dist/bundle/program.js');
    const stamps = EXECUTABLES.map((executable) => statSync(program(executable)).mtimeMs);
    const markers = EXECUTABLES.map((executable) => join(ROOT, executable, 'dist/bundle/.compile-cache/test-marker'));
    for (const marker of markers) {
      mkdirSync(join(marker, '..'), { recursive: true });
      writeFileSync(marker, '');
    }
    try {
      const build = spawnSync(process.execPath, [join(ROOT, 'scripts/bundle-programs.mjs')], { encoding: 'utf8' });
      expect(build.status, build.stderr).toBe(0);
      expect(EXECUTABLES.map((executable) => statSync(program(executable)).mtimeMs)).toEqual(stamps);
      expect(markers.filter((marker) => !existsSync(marker))).toEqual([]);
    } finally {
      for (const marker of markers) rmSync(marker, { force: true });
    }
  });

  it('svc started without its bundle says why in its ready log line and banner', async () => {
    // an executable laid out as cli/dist is, with no bundle beside it: its main.js runs program.js, the svc program
    dir = mkdtempSync(join(tmpdir(), 'svc-unbundled-'));
    mkdirSync(join(dir, 'dist'));
    const kit = pathToFileURL(join(ROOT, 'config/kit/dist/bundle.js')).href;
    const program = pathToFileURL(join(ROOT, 'cli/dist/program.js')).href;
    writeFileSync(
      join(dir, 'dist/main.js'),
      `import { currentProgram } from '${kit}';\nawait import(currentProgram(import.meta.url));\n`,
    );
    writeFileSync(join(dir, 'dist/program.js'), `await import('${program}');\n`);
    writeFileSync(join(dir, 'svc-config.yaml'), `port: ${await freePort()}\nhost: 127.0.0.1\nmodules: []\n`);
    const svc = spawn(process.execPath, [join(dir, 'dist/main.js'), '-c', join(dir, 'svc-config.yaml')], { cwd: dir });
    let stdout = '';
    let stderr = '';
    svc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    svc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await waitFor(() => stderr.includes('svc ready in') && stdout.includes('"svc ready"'), 20_000, 'svc ready');
      const why = `there is no bundle in ${join(dir, 'dist/bundle')}`;
      expect(stderr).toContain(`  note     started without its bundle, so start-up is slower: ${why} (npm run build`);
      const ready = stdout.split('\n').find((line) => line.includes('"svc ready"'));
      expect(JSON.parse(ready!)).toMatchObject({ unbundled: why });
    } finally {
      svc.kill('SIGKILL');
    }
  });

  it('svc run from its bundle reads its own package.json and the embedded config beside their modules', () => {
    const version = (JSON.parse(readFileSync(join(ROOT, 'cli/package.json'), 'utf8')) as { version: string }).version;
    const res = spawnSync(process.execPath, [join(ROOT, 'cli/dist/bundle/program.js'), '--version'], {
      encoding: 'utf8',
    });
    expect(res.stderr).toBe('');
    expect(res.stdout).toBe(`svc ${version}\n`);
    // `svc init` writes a dev script whose text holds import.meta.url: written as it is, not rewritten
    dir = mkdtempSync(join(tmpdir(), 'svc-bundle-init-'));
    const init = spawnSync(process.execPath, [join(ROOT, 'cli/dist/bundle/program.js'), 'init', join(dir, 'w')], {
      encoding: 'utf8',
    });
    expect(init.status, init.stderr).toBe(0);
    expect(readFileSync(join(dir, 'w/dev.mjs'), 'utf8')).toContain(
      "createRequire(import.meta.url).resolve('typescript",
    );
  });

  it('a module bundled elsewhere keeps its own import.meta.url; a string that spells it is left alone', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-bundle-url-'));
    const src = join(dir, 'src/deep');
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, 'data.txt'), 'beside the module');
    // a non-ASCII comment first: the rewrite's offsets are in UTF-16 units, as the module's text is
    writeFileSync(
      join(src, 'lib.js'),
      [
        '// é … — offsets',
        "import { readFileSync } from 'node:fs';",
        "export const text = readFileSync(new URL('./data.txt', import.meta.url), 'utf8');",
        'export const spelled = `import.meta.url`;',
        'export const own = import.meta.url;',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'src/entry.js'),
      "import { text, spelled, own } from './deep/lib.js';\nconsole.log(JSON.stringify({ text, spelled, own }));\n",
    );
    const out = await bundleEntry(dir, 'esm', { plugins: [moduleUrlPlugin(join(dir, 'out/bundle'))] });
    const res = spawnSync(process.execPath, [join(out, 'entry.js')], { encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toEqual({
      text: 'beside the module',
      spelled: 'import.meta.url',
      own: pathToFileURL(join(src, 'lib.js')).href,
    });
  });

  it('a bundle run from its code cache still imports a computed specifier', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-bundle-import-'));
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/esm.mjs'), "export const from = 'an ES module';\n");
    writeFileSync(
      join(dir, 'src/entry.js'),
      [
        "import { pathToFileURL } from 'node:url';",
        'const target = pathToFileURL(process.argv.at(-1)).href;',
        'import(target).then((m) => console.log(m.from));',
      ].join('\n'),
    );
    const out = await bundleEntry(dir, 'cjs', {
      plugins: [dynamicImportPlugin()],
    });
    const kit = pathToFileURL(join(ROOT, 'config/kit/dist/compile-cache.js')).href;
    const script = `import { runBundle } from '${kit}'; runBundle(${JSON.stringify(join(out, 'entry.js'))});`;
    const run = () =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script, join(dir!, 'src/esm.mjs')], {
        encoding: 'utf8',
      });
    for (const round of ['compiled', 'from the cache']) {
      const res = run();
      expect(res.stderr, round).toBe('');
      expect(res.stdout, round).toBe('an ES module\n');
    }
    expect(readdirSync(join(out, '.compile-cache')).some((f) => f.startsWith('entry.js.'))).toBe(true);
    // and without the loader, as `node dist/bundle/program.js` runs it
    const plain = spawnSync(process.execPath, [join(out, 'entry.js'), join(dir, 'src/esm.mjs')], { encoding: 'utf8' });
    expect(plain.stdout).toBe('an ES module\n');
  });

  it('CommonJS packages are required from the bundle, with the default and named exports an import gives', async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-bundle-cjs-'));
    mkdirSync(join(dir, 'node_modules/odd-keys'), { recursive: true });
    for (const pkg of ['ws', 'pino', 'better-sqlite3']) {
      symlinkSync(join(ROOT, 'node_modules', pkg), join(dir, 'node_modules', pkg));
    }
    // keys that are reserved words, or the names a generated module might give its own locals
    writeFileSync(join(dir, 'node_modules/odd-keys/package.json'), '{"name":"odd-keys","main":"index.js"}');
    writeFileSync(
      join(dir, 'node_modules/odd-keys/index.js'),
      'module.exports = { delete: 1, class: 2, m: 3, createRequire: 4, __cjsModule: 5, "not-a-name": 6 };',
    );
    mkdirSync(join(dir, 'src'));
    writeFileSync(
      join(dir, 'src/entry.js'),
      [
        "import WebSocket, { WebSocketServer } from 'ws';",
        "import pino, { pino as named, levels } from 'pino';",
        "import Database from 'better-sqlite3';",
        "import odd, { class as klass, m, createRequire, __cjsModule } from 'odd-keys';",
        'const db = new Database(":memory:");',
        'console.log(JSON.stringify({',
        '  ws: WebSocket.name, server: WebSocketServer === WebSocket.WebSocketServer,',
        '  pino: typeof pino === "function" && pino === named, info: levels.values.info,',
        '  sqlite: db.prepare("select 40 + 2 as n").get().n,',
        '  odd: [odd.delete, klass, m, createRequire, __cjsModule, odd["not-a-name"]],',
        '}));',
      ].join('\n'),
    );
    // as scripts/bundle-programs.mjs bundles: CommonJS, these packages left in node_modules
    const out = await bundleEntry(dir, 'cjs', {
      external: (id) => /^(ws|pino|better-sqlite3|odd-keys)(\/|$)/.test(id),
    });
    const code = readdirSync(out)
      .map((f) => readFileSync(join(out, f), 'utf8'))
      .join('\n');
    expect(code).not.toMatch(/from\s*["'](ws|pino|better-sqlite3)["']/);
    expect(code).toContain('require("ws")');
    const res = spawnSync(process.execPath, [join(out, 'entry.js')], { encoding: 'utf8' });
    expect(res.stderr).toBe('');
    expect(JSON.parse(res.stdout)).toEqual({
      ws: 'WebSocket',
      server: true,
      pino: true,
      info: 30,
      sqlite: 42,
      odd: [1, 2, 3, 4, 5, 6],
    });
  });
});
