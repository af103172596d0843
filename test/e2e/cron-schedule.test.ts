/**
 * svc-cron end to end: a real engine, a real svc-cron process, a worker bound with `cron` triggers.
 * Fires on a one-second schedule with the documented payload; six- and seven-field expressions; bad expressions
 * are refused with a `triggerregistrationresult` error the registering worker receives; "Trigger Now" and
 * `cron::list`.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { spawnWorker, startEngine, waitFor, type Child, type EngineProcess } from '../harness.js';
import { memoryAdapter, recorder, sleep, spawnCron, type CronRun } from './cron-support.js';

let engine: EngineProcess;
let cron: Child;
let client: SvcClient;
let runs: CronRun[];
const FN = `cron-e2e::tick-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  engine = await startEngine();
  cron = spawnCron(engine.url, memoryAdapter);
  await cron.waitForOutput('svc-cron started');
  ({ client, runs } = await recorder(engine.url, FN));
});

afterAll(async () => {
  await client?.shutdown();
  await cron?.stop();
  await engine?.stop();
});

describe('svc-cron', () => {
  it('fires every second (six fields) with the documented payload', async () => {
    const trigger = client.registerTrigger({ type: 'cron', function_id: FN, config: { expression: '* * * * * *' } });
    try {
      await waitFor(() => runs.filter((r) => r.job_id === trigger.id).length >= 3, 6000, '3 runs');
    } finally {
      trigger.unregister();
    }
    const mine = runs.filter((r) => r.job_id === trigger.id);
    for (const run of mine) {
      expect(run.trigger).toBe('cron');
      expect(run.scheduled_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
      expect(Date.parse(run.actual_time)).toBeGreaterThanOrEqual(Date.parse(run.scheduled_time));
      expect(Date.parse(run.actual_time) - Date.parse(run.scheduled_time)).toBeLessThan(1000);
    }
    const ticks = mine.map((r) => Date.parse(r.scheduled_time));
    expect(new Set(ticks).size).toBe(ticks.length); // one run per tick
    const gaps = ticks.slice(1).map((t, i) => t - ticks[i]!);
    expect(gaps.every((g) => g % 1000 === 0 && g > 0)).toBe(true);
    // Consecutive seconds; one collapsed tick is tolerated (a wake-up > 1 s late on a loaded machine is a misfire).
    expect(gaps.filter((g) => g !== 1000).length).toBeLessThanOrEqual(1);
    // Unregistered: no more runs after the in-flight one.
    await sleep(1500);
    const after = runs.filter((r) => r.job_id === trigger.id).length;
    await sleep(1200);
    expect(runs.filter((r) => r.job_id === trigger.id).length).toBe(after);
  });

  it('accepts a seven-field expression (with year) and fires it', async () => {
    const trigger = client.registerTrigger({
      type: 'cron',
      function_id: FN,
      config: { expression: '*/1 * * * * ? 2020-2099', timezone: 'Europe/Paris' },
    });
    try {
      await waitFor(() => runs.some((r) => r.job_id === trigger.id), 4000, 'a run of the seven-field job');
    } finally {
      trigger.unregister();
    }
  });

  it('applies condition_function_id: runs only when the condition returns a truthy value', async () => {
    const allow = { value: false };
    const conditionId = `${FN}-condition`;
    client.registerFunction(conditionId, (payload: { trigger?: string }) => payload.trigger === 'cron' && allow.value);
    const trigger = client.registerTrigger({
      type: 'cron',
      function_id: FN,
      config: { expression: '* * * * * *', condition_function_id: conditionId },
    });
    try {
      await sleep(2500);
      expect(runs.filter((r) => r.job_id === trigger.id)).toEqual([]);
      allow.value = true;
      await waitFor(() => runs.some((r) => r.job_id === trigger.id), 3000, 'a run once the condition allows it');
    } finally {
      trigger.unregister();
    }
  });

  it('serves a cron trigger registered by the iii-sdk@0.22.1 client', async () => {
    const worker = spawnWorker('test/e2e/cron-iii-worker.mjs', {
      SVC_URL: engine.url,
      FN: `${FN}-iii`,
      EXPRESSION: '* * * * * *',
    });
    try {
      await worker.waitForOutput(/run .*\n.*run /, 6000);
      const payloads = [...worker.logs().matchAll(/^run (.*)$/gm)].map(
        (m) => JSON.parse(m[1]!) as Record<string, unknown>,
      );
      expect(payloads[0]).toMatchObject({ trigger: 'cron', job_id: expect.any(String) });
      expect(payloads[0]!.scheduled_time).not.toBe(payloads[1]!.scheduled_time);
    } finally {
      await worker.stop();
    }
  });

  it('refuses bad expressions with a triggerregistrationresult error that says what is wrong', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ expression: '* * * * *' }, /expected 6 fields .* got 5/],
      [{ expression: '0 0 24 * * *' }, /hour \(3rd field\) '24': value 24 is out of range 0-23/],
      [{ expression: '0 0 0 30 2 *' }, /never fires/],
      [{}, /cron expression is required/],
      ['* * * * * *', /cron trigger config must be an object/],
      [{ expression: '* * * * * *', condition_function_id: 5 }, /condition_function_id must be a function id/],
      [{ expression: '* * * * * *', timezone: 'Nowhere/Land' }, /invalid timezone 'Nowhere\/Land'/],
    ];
    for (const [config, message] of cases) {
      const error = await registrationError(engine.url, config);
      expect(error.code).toBe('trigger_registration_failed');
      expect(error.message).toMatch(message);
    }
  });

  it('cron::trigger fires a binding now and cron::list shows it with its next run', async () => {
    const trigger = client.registerTrigger({ type: 'cron', function_id: FN, config: { expression: '0 0 0 1 1 *' } });
    try {
      const listed = await waitFor(async () => {
        const list = await client.trigger<{ jobs: Array<{ id: string; next_run: string; expression: string }> }>({
          function_id: 'cron::list',
          payload: {},
        });
        return list.jobs.find((j) => j.id === trigger.id);
      }, 5000);
      expect(listed!.expression).toBe('0 0 0 1 1 *');
      expect(listed!.next_run).toMatch(/-01-01T00:00:00\.000Z$/);
      const before = runs.length;
      const fired = await client.trigger<{ fired: boolean; job_id: string }>({
        function_id: 'cron::trigger',
        payload: { id: trigger.id },
      });
      expect(fired).toMatchObject({ fired: true, job_id: trigger.id, trigger: 'cron' });
      await waitFor(() => runs.length > before, 3000, 'the manual run');
      expect(runs.at(-1)!.job_id).toBe(trigger.id);
      const missing = await client.trigger({ function_id: 'cron::trigger', payload: { id: 'nope' } }).catch((e) => e);
      expect((missing as { code?: string }).code).toBe('cron_job_not_found');
      expect(String((missing as Error).message)).toMatch(/no cron trigger with id 'nope'/);
      const noId = await client.trigger({ function_id: 'cron::trigger', payload: {} }).catch((e) => e);
      expect((noId as { code?: string }).code).toBe('INVALID_ARGUMENTS');
    } finally {
      trigger.unregister();
    }
  });
});

/** Registers a `cron` trigger over a raw socket and resolves the error of the `triggerregistrationresult`. */
function registrationError(url: string, config: unknown): Promise<{ code: string; message: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const id = randomUUID();
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`no triggerregistrationresult for ${JSON.stringify(config)}`));
    }, 5000);
    ws.on('open', () => {
      ws.send(JSON.stringify({ type: 'registerfunction', id: `cron-e2e::bad-${id}` }));
      ws.send(
        JSON.stringify({
          type: 'registertrigger',
          id,
          trigger_type: 'cron',
          function_id: `cron-e2e::bad-${id}`,
          config,
        }),
      );
    });
    ws.on('message', (raw) => {
      const msg = JSON.parse((raw as Buffer).toString()) as {
        type: string;
        id?: string;
        error?: { code: string; message: string };
      };
      if (msg.type !== 'triggerregistrationresult' || msg.id !== id || !msg.error) return;
      clearTimeout(timer);
      ws.close();
      resolve(msg.error);
    });
    ws.on('error', reject);
  });
}
