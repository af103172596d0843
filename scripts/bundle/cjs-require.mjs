// The bundler plugin of scripts/bundle-programs.mjs that loads the CommonJS packages a bundle leaves in
// node_modules with `require`, not `import`.
import { createRequire } from 'node:module';

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set(['default', 'await', 'enum', 'implements', 'interface', 'package', 'private', 'protected']);

/**
 * An `import` of a CommonJS package from an ES module costs Node, for each module it reaches, a compile to detect
 * its format, a lexer pass to find its named exports (following its re-exports) and then the compile that runs it;
 * `require` costs the last alone. Each bare import of a package in `packages` (a list of names) becomes a module
 * that requires it from the bundle's directory and exports what the package's `module.exports` holds at build time,
 * as named exports beside the default (Node's own names for them are the lexer's guess at the same keys).
 * Subpath imports (`pkg/x`) stay imports.
 */
export function cjsRequirePlugin(packages) {
  const PREFIX = '\0cjs-require:';
  const wanted = new Set(packages);
  const require = createRequire(import.meta.url);
  return {
    name: 'cjs-require',
    resolveId(source) {
      return wanted.has(source) ? { id: PREFIX + source, moduleSideEffects: true } : null;
    },
    load(id) {
      if (!id.startsWith(PREFIX)) return null;
      const name = id.slice(PREFIX.length);
      const names = Object.keys(require(name)).filter((key) => IDENTIFIER.test(key) && !RESERVED.has(key));
      return [
        "import { createRequire } from 'node:module';",
        `const m = createRequire(import.meta.url)(${JSON.stringify(name)});`,
        'export default m;',
        ...(names.length === 0 ? [] : [`export const { ${names.join(', ')} } = m;`]),
      ].join('\n');
    },
  };
}
