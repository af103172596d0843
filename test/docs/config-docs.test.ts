/**
 * docs/config.md is the config reference rendered from the zod schemas (`npm run docs:config`). A schema change
 * without regenerating it fails here, so the reference always says what the engine and the workers accept.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderConfigReference } from '@svc/config';

const ROOT = resolve(import.meta.dirname, '../..');

describe('docs/config.md', () => {
  it('is what the schemas render (run `npm run docs:config` after changing a schema)', () => {
    const onDisk = readFileSync(join(ROOT, 'docs/config.md'), 'utf8');
    expect(onDisk, 'docs/config.md is out of date: run `npm run docs:config`').toBe(renderConfigReference());
  });

  it('documents every module class and every key of the embedded default config', () => {
    const reference = renderConfigReference();
    for (const cls of ['modules::state::StateModule', 'modules::pubsub::PubSubModule', 'modules::shell::ExecModule']) {
      expect(reference).toContain(`## \`${cls}\``);
    }
    expect(reference).toContain('| `adapter.config.file_path` |');
    expect(reference).toContain('| `max_value_bytes` | integer > 0 | `1048576` |');
  });
});
