import type { Plugin } from 'rolldown';

/** The bundler plugin that sends a bundle's `import()` of a computed specifier through the compile cache's hook. */
export function dynamicImportPlugin(): Plugin;
