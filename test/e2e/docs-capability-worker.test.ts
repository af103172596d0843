/**
 * The capability worker of docs/capability-workers.md, taken from the page as written, runs: it provides its
 * trigger type, refuses a bad binding with its own message, lists good ones through its function, and stops
 * cleanly on SIGTERM.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWorker, type SvcClient } from '@svc/sdk';
import pino from 'pino';
import { ROOT, rawCall, spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';

/** Next to the tests, so `@svc/sdk` resolves from the repository's node_modules like an installed package. */
const SCRIPT = join(ROOT, 'test/e2e', `.doc-capability-worker-${process.pid}.mjs`);

function docExample(): string {
  const page = readFileSync(join(ROOT, 'docs/capability-workers.md'), 'utf8');
  const block = /```ts\n(\/\/ webhook-worker\.ts[\s\S]*?)```/.exec(page);
  if (!block?.[1]) throw new Error('docs/capability-workers.md has no webhook-worker.ts block');
  const out = ts.transpileModule(block[1], {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  return out.outputText;
}

let engine: EngineProcess;
let worker: Child;
let user: SvcClient;

beforeAll(async () => {
  writeFileSync(SCRIPT, docExample());
  engine = await startEngine();
  worker = spawnWorker(SCRIPT, { SVC_URL: engine.url, SVC_MODULE_CONFIG: '{"default_every_ms":3600000}' });
  await worker.waitForOutput('webhook worker started', 30000);
  user = registerWorker(engine.url, { workerName: 'prices', logger: pino({ level: 'silent' }) });
  user.registerFunction('prices::changed', () => Promise.resolve({ ok: true }));
});

afterAll(async () => {
  await user?.shutdown();
  await worker?.stop();
  await engine?.stop();
  rmSync(SCRIPT, { force: true });
});

describe('docs/capability-workers.md', () => {
  it('its worker provides the `webhook` trigger type and the `webhook::list` function', async () => {
    const good = user.registerTrigger({
      type: 'webhook',
      function_id: 'prices::changed',
      config: { url: 'https://example.com/prices.json' },
    });
    user.registerTrigger({ type: 'webhook', function_id: 'prices::changed', config: { url: 'http://insecure' } });
    const listed = await waitFor(
      async () => {
        const answer = await rawCall(engine.url, 'webhook::list', {});
        const ids = (answer.result as { bindings?: string[] } | undefined)?.bindings ?? [];
        return ids.includes(good.id) ? ids : undefined;
      },
      15000,
      'the good binding listed',
    );
    expect(listed).toEqual([good.id]);
    const refused = await waitFor(
      async () => {
        const answer = await rawCall(engine.url, 'engine::registered-triggers::list', { trigger_type: 'webhook' });
        const list = (answer.result as { registered_triggers: { error?: { message: string } }[] }).registered_triggers;
        return list.find((t) => t.error !== undefined);
      },
      15000,
      'the refused binding',
    );
    expect(refused?.error?.message).toContain('config.url must be https://');
  });

  it('stops cleanly on SIGTERM (close() runs, exit 0)', async () => {
    expect(await worker.stop()).toBe(0);
  });
});
