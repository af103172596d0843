import type { Plugin } from 'rolldown';

/** The bundler plugin that loads the CommonJS packages named in `packages` with `require` instead of `import`. */
export function cjsRequirePlugin(packages: string[], resolveFrom?: string): Plugin;
