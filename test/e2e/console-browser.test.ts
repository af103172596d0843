/**
 * The console in real Chromium against a real engine, its capability workers and a sample worker: every page's
 * main action, end to end. One browser, one stack, the tests in order. Screenshots go to test-artifacts/console/.
 * Needs Debian's chromium (scripts/services.sh installs it); skipped with that reason when it is absent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../harness.js';
import { spansFrom } from '../../console/web/src/traces/model.js';
import { CHROMIUM, open, screenshot, startConsoleStack, type ConsoleStack } from './console-support.js';

let stack: ConsoleStack;

describe.skipIf(CHROMIUM === undefined)('svc console in Chromium (needs the chromium package)', () => {
  beforeAll(async () => {
    stack = await startConsoleStack();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const stateOf = async (scope: string, key: string): Promise<unknown> =>
    (await stack.call('state::get', { scope, key })).result;

  it('Functions: select a function, invoke it with a JSON payload, see the result; errors show their code', async () => {
    const page = await open(stack, '/functions');
    await page.getByTestId('function-search').fill('sample::');
    await page.getByTestId('function-row-sample::greet').click();
    await expect(page.getByTestId('function-title').textContent()).resolves.toBe('sample::greet');
    const payload = page.getByTestId('invoke-payload');
    // The editor starts from the function's request schema.
    await waitFor(async () => (await payload.inputValue()).includes('"grace"'), 10000, 'the schema example');
    await payload.fill('{"name": ');
    await page.getByTestId('invoke-payload-error').waitFor();
    expect(await page.getByTestId('invoke-button').isDisabled()).toBe(true);
    await payload.fill('{"name": "ada"}');
    await page.getByTestId('invoke-button').click();
    await page.getByTestId('invoke-output').getByText('hello ada').waitFor();
    expect(await page.getByTestId('invoke-status').textContent()).toBe('success');
    await expect(page.getByTestId('invoke-duration').textContent()).resolves.toMatch(/ms$/);
    await page.getByTestId('invoke-trace-link').waitFor();
    await screenshot(page, 'functions');

    await page.getByTestId('function-row-sample::fail').click();
    await page.getByTestId('invoke-button').click();
    await page.getByTestId('invoke-error-code').waitFor();
    expect(await page.getByTestId('invoke-error-code').textContent()).toBe('invocation_failed');
    expect(await page.getByTestId('invoke-output').textContent()).toContain('out of stock');
    await screenshot(page, 'functions-error');

    // A timeout is shown inline too, with its code.
    await page.getByTestId('function-row-sample::slow').click();
    await page.getByTestId('invoke-timeout').fill('300');
    await page.getByTestId('invoke-button').click();
    await page.getByTestId('invoke-error-code').waitFor();
    expect(await page.getByTestId('invoke-error-code').textContent()).toMatch(/^(invocation_timeout|TIMEOUT)$/);
  });

  it('Triggers › HTTP: method, prefilled path, query rows and JSON body; Send shows status, headers, body', async () => {
    const page = await open(stack, '/triggers');
    await page.getByTestId('tab-http').click();
    await page.getByTestId('trigger-row-sample::echo').click();
    expect(await page.getByTestId('http-method').inputValue()).toBe('POST');
    expect(await page.getByTestId('http-path').inputValue()).toBe('/sample/echo/:id');
    await page.getByTestId('http-path').fill('/sample/echo/42');
    await page.getByTestId('query-key-0').fill('color');
    await page.getByTestId('query-value-0').fill('blue');
    await page.getByTestId('http-body').fill('{"qty": 3}');
    await page.getByTestId('http-send').click();
    await page.getByTestId('http-result').waitFor();
    expect(await page.getByTestId('http-status').textContent()).toBe('201');
    const body = JSON.parse((await page.getByTestId('http-body-out').textContent()) ?? '') as unknown;
    expect(body).toEqual({ id: '42', query: { color: 'blue' }, method: 'POST', body: { qty: 3 } });
    expect(await page.getByTestId('http-headers').textContent()).toContain('x-sample');
    await screenshot(page, 'triggers-http');
  });

  it('Triggers › Cron: shows the schedule and next runs; Trigger Now runs the function at once', async () => {
    const page = await open(stack, '/triggers');
    await page.getByTestId('tab-cron').click();
    await page.getByTestId('trigger-row-sample::tick').click();
    expect(await page.getByTestId('cron-expression').textContent()).toBe('0 0 0 1 1 *');
    await page
      .getByTestId('cron-next-run')
      .getByText(/^\d{4}-01-01T00:00:00/)
      .waitFor();
    const later = await page.getByTestId('cron-next-runs').locator('div').allTextContents();
    expect(later).toHaveLength(5);
    for (const run of later) expect(run).toMatch(/^\d{4}-01-01T00:00:00\.000Z$/);
    await page.getByTestId('cron-trigger-now').click();
    await page.getByTestId('cron-result').waitFor();
    await waitFor(() => stateOf('sample', 'cron-fired'), 10000, 'the cron function to run');
    await screenshot(page, 'triggers-cron');
  });

  it('Triggers › Event: the event name is prefilled; Emit publishes the JSON payload to the subscriber', async () => {
    const page = await open(stack, '/triggers');
    await page.getByTestId('tab-event').click();
    await page.getByTestId('trigger-row-sample::on_created').click();
    expect(await page.getByTestId('event-name').inputValue()).toBe('sample.created');
    await page.getByTestId('event-payload').fill('{"order": 7}');
    await page.getByTestId('event-emit').click();
    await page.getByTestId('event-result').waitFor();
    const received = await waitFor(() => stateOf('sample', 'event-received'), 10000, 'the event to arrive');
    expect(received).toEqual({ order: 7 });
    await screenshot(page, 'triggers-event');
  });

  it('States: add an item, edit its JSON value, delete it after confirming', async () => {
    const page = await open(stack, '/states');
    await page.getByTestId('state-add').click();
    await page.getByTestId('state-new-scope').fill('console-test');
    await page.getByTestId('state-new-key').fill('k1');
    await page.getByTestId('state-new-value').fill('{"v": 1}');
    await page.getByTestId('state-save').click();
    await page.getByTestId('state-value-k1').getByText('{"v":1}').waitFor();
    expect(await stateOf('console-test', 'k1')).toEqual({ v: 1 });

    await page.getByTestId('state-edit-k1').click();
    await page.getByTestId('state-edit-value').fill('{"v": 2, "tags": ["a"]}');
    await page.getByTestId('state-edit-save').click();
    await page.getByTestId('state-value-k1').getByText('{"v":2,"tags":["a"]}').waitFor();
    expect(await stateOf('console-test', 'k1')).toEqual({ v: 2, tags: ['a'] });
    await screenshot(page, 'states');

    await page.getByTestId('state-delete-k1').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('state-item-k1').waitFor({ state: 'detached' });
    expect(await stateOf('console-test', 'k1')).toBeUndefined();
  });

  it('Queues: publish; dead letters retried one by one or all at once, or deleted; completed and failed counted', async () => {
    const page = await open(stack, '/queues');
    await page.getByTestId('queue-row-sample-jobs').click();
    for (const job of [1, 2, 3]) {
      await page.getByTestId('queue-payload').fill(`{"job": ${job}}`);
      await page.getByTestId('queue-publish').click();
      await page.getByTestId('queue-publish-result').waitFor();
    }
    // The subscriber fails every attempt (3, with backoff): the messages end in the dead letters.
    const cell = (column: string, text: string) =>
      page.getByTestId(`queue-${column}-sample-jobs`).getByText(text, { exact: true });
    await cell('dead', '3').waitFor({ timeout: 30000 });
    await cell('failed', '3').waitFor();
    await cell('completed', '0').waitFor();
    await page.getByTestId('queue-tab-dlq').click();
    await page.getByTestId('dlq-total').getByText('3 dead letters').waitFor();
    await screenshot(page, 'queues-dead-letters');
    expect((await stack.call('sample::heal')).result).toEqual({ healthy: true });
    const card = (job: number) => page.locator('[data-testid^="dlq-message-"]', { hasText: `"job": ${job}` });

    await card(2).getByTestId('dlq-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('dlq-total').getByText('2 dead letters').waitFor();
    await card(1).getByTestId('dlq-retry').click();
    expect(await waitFor(() => stateOf('sample', 'processed-1'), 20000, 'job 1 to run')).toMatchObject({ job: 1 });
    await page.getByTestId('dlq-total').getByText('1 dead letters').waitFor();
    await page.getByTestId('dlq-retry-all').click();
    expect(await waitFor(() => stateOf('sample', 'processed-3'), 20000, 'job 3 to run')).toMatchObject({ job: 3 });
    await page.getByTestId('dlq-total').getByText('0 dead letters').waitFor();
    expect(await stateOf('sample', 'processed-2')).toBeUndefined();
    // The redriven jobs completed; the failures stay counted while the dead letters are gone.
    await cell('dead', '0').waitFor();
    await cell('completed', '2').waitFor();
    await cell('failed', '3').waitFor();
    await screenshot(page, 'queues');
  });

  it('Workers: connected workers with runtime, pid and function count; capability workers shown as running', async () => {
    const page = await open(stack, '/workers');
    const row = page.getByTestId('worker-row-sample-worker');
    await row.waitFor();
    expect(await row.textContent()).toMatch(/node.*\d+/);
    await page
      .getByTestId('capability-svc-state')
      .getByText(/running/)
      .waitFor();
    await row.click();
    await page.getByTestId('worker-detail').getByText('sample::greet').waitFor();
    await screenshot(page, 'workers');

    // Workers coming and going show up without reloading the page.
    const late = stack.spawn('test/e2e/console-fixtures/late-worker.mjs');
    await late.waitForOutput('ready', 20000);
    await page.getByTestId('worker-row-late-worker').waitFor();
    await late.stop();
    await page.getByTestId('worker-row-late-worker').waitFor({ state: 'detached' });
  });

  it('Streams: groups and items, updated live when an item changes', async () => {
    await stack.call('stream::set', { stream_name: 'orders', group_id: 'eu', item_id: 'o1', data: { id: 'o1', n: 1 } });
    const page = await open(stack, '/streams');
    await page.getByTestId('stream-group-orders-eu').click();
    await page.getByTestId('stream-live').getByText('live').waitFor();
    await page.getByTestId('stream-items').getByText('"n": 1').waitFor();
    await stack.call('stream::set', { stream_name: 'orders', group_id: 'eu', item_id: 'o2', data: { id: 'o2', n: 2 } });
    await page.getByTestId('stream-items').getByText('"n": 2').waitFor();
    await page.getByTestId('stream-events').getByText('create').waitFor();
    await screenshot(page, 'streams');
  });

  it('Flow: triggers and functions as a graph; inspect a node; auto layout is saved in the state store', async () => {
    const page = await open(stack, '/flow');
    await page.locator('.react-flow__node', { hasText: 'sample::echo' }).first().waitFor();
    await page.locator('.react-flow__node', { hasText: 'cron 0 0 0 1 1 *' }).click();
    await page.getByTestId('flow-inspect').getByText('sample::tick').waitFor();
    await page.getByTestId('flow-auto-layout').click();
    await page.getByTestId('flow-saved').getByText('layout saved').waitFor();
    const saved = (await stateOf('svc:console:flows', 'default')) as { positions: Record<string, unknown> };
    expect(Object.keys(saved.positions)).toContain('fn:sample::echo');
    await screenshot(page, 'flow');
  });

  it('Traces: opening an invocation trace shows the waterfall with one row per stored span', async (ctx) => {
    const registered = await stack.call('engine::functions::info', { function_id: 'engine::traces::list' });
    if (registered.error) {
      const page = await open(stack, '/traces');
      await page.getByTestId('observability-off').waitFor();
      await screenshot(page, 'traces-observability-off');
      ctx.skip('engine::traces::list is not registered (no observability worker): the waterfall cannot be checked');
    }
    const page = await open(stack, '/functions/sample%3A%3Agreet');
    await page.getByTestId('invoke-button').click();
    const link = page.getByTestId('invoke-trace-link');
    await link.waitFor();
    const traceId = ((await link.getAttribute('href')) ?? '').split('/').pop() ?? '';
    // Spans are exported as each one ends: wait until the stored count stops changing.
    let last = -1;
    const count = await waitFor(
      async () => {
        const { result } = await stack.call('engine::traces::list', { trace_id: traceId });
        const n = spansFrom(result).filter((s) => s.traceId === traceId).length;
        const stable = n > 0 && n === last;
        last = n;
        if (!stable) await new Promise((r) => setTimeout(r, 500));
        return stable ? n : undefined;
      },
      20000,
      'the trace to be stored',
    );
    await link.click();
    await page.getByTestId('waterfall').waitFor();
    const rows = page.getByTestId('waterfall-row');
    await waitFor(
      async () =>
        (await rows.count()) === count || (await page.getByRole('button', { name: 'Refresh' }).click(), false),
      10000,
      `${count} waterfall rows`,
    );
    expect(await page.getByTestId('trace-span-count').textContent()).toBe(`${count} spans`);
    await screenshot(page, 'traces-waterfall');
  });

  it('Logs: the page answers with logs or says observability is not enabled', async () => {
    const page = await open(stack, '/logs');
    await page.locator('[data-testid="logs-table"], [data-testid="observability-off"]').first().waitFor();
    await screenshot(page, 'logs');
  });

  it('a console whose engine is not running shows "not connected" inline, not a blank page', async () => {
    const dead = await stack.startConsole(['--bridge-port', '1', '--engine-port', '1', '--ws-port', '1']);
    const page = await stack.browser.newPage();
    await page.goto(`${dead}/functions`);
    await page.getByTestId('error-box').first().getByText('engine_unreachable').waitFor();
    expect(await page.getByTestId('engine-status').textContent()).toBe('not connected');
    await screenshot(page, 'not-connected');
    await page.close();
  });
});
