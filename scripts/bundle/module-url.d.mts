import type { Plugin } from 'rolldown';

/** The bundler plugin that keeps each module's own `import.meta.url` in a bundle written to `out`. */
export function moduleUrlPlugin(out: string): Plugin;
