// `npm run docs:config`: writes docs/config.md, the config reference rendered from the zod schemas (after a build).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderConfigReference } from '../../config/dist/index.js';

const target = join(dirname(fileURLToPath(import.meta.url)), '../../docs/config.md');
writeFileSync(target, renderConfigReference());
console.log(`wrote ${target}`);
