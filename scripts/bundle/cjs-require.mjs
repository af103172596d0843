// The bundler plugin of scripts/bundle-programs.mjs that loads the CommonJS packages a bundle leaves in
// node_modules with `require`, not `import`.
import { createRequire } from 'node:module';

/** A key that an `export { local as key }` can name (reserved words included: export names may be any). */
const EXPORT_NAME = /^[A-Za-z_$][\w$]*$/;

/**
 * An `import` of a CommonJS package from an ES module costs Node, for each module it reaches, a compile to detect
 * its format, a lexer pass to find its named exports (following its re-exports) and then the compile that runs it;
 * `require` costs the last alone. Each bare import of a package in `packages` (a list of names) becomes a module
 * that requires it from the bundle's directory and exports what the package's `module.exports` holds at build time,
 * as named exports beside the default (Node's own names for them are the lexer's guess at the same keys).
 * Subpath imports (`pkg/x`) stay imports. `resolveFrom` (a file path or URL) is where the packages are found at
 * build time; by default beside this file.
 */
export function cjsRequirePlugin(packages, resolveFrom = import.meta.url) {
  const PREFIX = '\0cjs-require:';
  const wanted = new Set(packages);
  const require = createRequire(resolveFrom);
  return {
    name: 'cjs-require',
    resolveId(source) {
      return wanted.has(source) ? { id: PREFIX + source, moduleSideEffects: true } : null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const name = id.slice(PREFIX.length);
      const names = Object.keys(require(name)).filter((key) => EXPORT_NAME.test(key) && key !== 'default');
      // locals of their own, so no key of the package can clash with a name of this module
      return [
        "import { createRequire as __cjsCreateRequire } from 'node:module';",
        `const __cjsModule = __cjsCreateRequire(import.meta.url)(${JSON.stringify(name)});`,
        'export default __cjsModule;',
        ...names.map((key, i) => `const __cjsExport${i} = __cjsModule[${JSON.stringify(key)}];`),
        ...(names.length === 0 ? [] : [`export { ${names.map((key, i) => `__cjsExport${i} as ${key}`).join(', ')} };`]),
      ].join('\n');
    },
  };
}
