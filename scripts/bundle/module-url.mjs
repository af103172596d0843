// The bundler plugin of scripts/bundle-programs.mjs that keeps each bundled module's own `import.meta.url`.
import { relative, sep } from 'node:path';
import { parseAst } from 'rolldown/parseAst';

/**
 * `import.meta.url` of a module bundled into the directory `out`, as the URL the module had where it was built:
 * the bundle lives elsewhere, and a module locating a file beside itself must still find it. Only the expressions
 * are rewritten, found in the module's syntax tree: the same words inside a string (a template of `svc init`)
 * stay as they are.
 */
export function moduleUrlPlugin(out) {
  return {
    name: 'module-url',
    transform(code, id) {
      if (id.startsWith('\0') || !code.includes('import.meta.url')) return null;
      const at = [];
      const walk = (node) => {
        if (Array.isArray(node)) return node.forEach(walk);
        if (node === null || typeof node !== 'object') return;
        if (node.type === 'MemberExpression' && node.object?.type === 'MetaProperty' && node.property?.name === 'url') {
          at.push(node);
          return;
        }
        for (const key in node) if (key !== 'parent') walk(node[key]);
      };
      walk(parseAst(code));
      if (at.length === 0) return null;
      const url = `new URL(${JSON.stringify(relative(out, id).split(sep).join('/'))}, import.meta.url).href`;
      let rewritten = '';
      let from = 0;
      for (const node of at.sort((a, b) => a.start - b.start)) {
        rewritten += code.slice(from, node.start) + url;
        from = node.end;
      }
      // map: null keeps the module's source map: the code moves within its lines only
      return { code: rewritten + code.slice(from), map: null };
    },
  };
}
