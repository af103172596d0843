// The bundler plugin of scripts/bundle-programs.mjs that sends a bundle's run-time `import()` through the hook of
// config/kit/src/compile-cache.ts.
import { parseAst } from 'rolldown/parseAst';

/** The name of the function each rewritten module gets (declared at its end, so hoisted). */
const IMPORT = '__svcImport';

/**
 * The bundles run with V8's code cache (config/kit/src/compile-cache.ts), and on Node 20 a script compiled from a
 * code cache loses the link to Node's ES module loader: an `import()` in it throws
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING. An `import()` of a computed specifier (one the bundler cannot resolve at
 * build time, such as `svc worker` importing a worker's main.js) becomes a call of a function that imports through
 * `globalThis[Symbol.for('svc.import')]`, which compile-cache.ts sets from an ES module of its own, or with
 * `import()` itself when the bundle runs without it (`node dist/bundle/program.js`). An `import()` of a string is
 * the bundler's (a chunk, required). Only the `import` keywords are rewritten, found in the module's syntax tree:
 * the code moves within its lines, so the module's source map still holds.
 */
export function dynamicImportPlugin() {
  return {
    name: 'dynamic-import',
    transform(code, id) {
      if (id.startsWith('\0') || !/\bimport\s*\(/.test(code)) return null;
      const at = [];
      const walk = (node) => {
        if (Array.isArray(node)) return node.forEach(walk);
        if (node === null || typeof node !== 'object') return;
        if (node.type === 'ImportExpression' && !isString(node.source)) at.push(node.start);
        for (const key in node) if (key !== 'parent') walk(node[key]);
      };
      walk(parseAst(code));
      if (at.length === 0) return null;
      let rewritten = '';
      let from = 0;
      for (const start of at.sort((a, b) => a - b)) {
        rewritten += `${code.slice(from, start)}${IMPORT}`;
        from = start + 'import'.length;
      }
      const hook = `\nfunction ${IMPORT}(specifier) {\n  const hook = globalThis[Symbol.for('svc.import')];\n  return hook === undefined ? import(specifier) : hook(specifier);\n}\n`;
      return { code: rewritten + code.slice(from) + hook, map: null };
    },
  };
}

function isString(node) {
  return (
    (node.type === 'Literal' && typeof node.value === 'string') ||
    (node.type === 'TemplateLiteral' && node.expressions.length === 0)
  );
}
