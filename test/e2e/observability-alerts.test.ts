/**
 * Alerts, the `log` trigger and the engine's plain-HTTP endpoints, end to end. An alert rule over
 * `svc.invocations.errors` POSTs to a loopback webhook receiver once per cooldown; another calls a function.
 * A `log` trigger filtered on `warn` fires for warn records only. `GET /metrics` speaks the Prometheus text
 * format, `GET /health` and `GET /ready` answer plain HTTP probes, `engine::health::check` reports real state.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SvcClient } from '@svc/sdk';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, waitFor, type EngineProcess } from '../harness.js';
import { client, eventually, sleep, spans, startObservedEngine } from './observability-support.js';

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const run = promisify(execFile);

let engine: EngineProcess;
let worker: SvcClient;
let receiver: Server;
const posts: Record<string, unknown>[] = [];
const alertCalls: Record<string, unknown>[] = [];
const logEvents: { severity_text: string; body: unknown; trace_id: unknown }[] = [];
const traceEvents: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      posts.push(JSON.parse(body) as Record<string, unknown>);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  engine = await startObservedEngine({
    alerts: [
      {
        name: 'errors-seen',
        metric: 'svc.invocations.errors',
        operator: '>',
        threshold: 0,
        window_seconds: 30,
        cooldown_seconds: 3600,
        action: { type: 'webhook', url },
      },
      {
        name: 'calls-seen',
        metric: 'svc.invocations.total',
        operator: '>=',
        threshold: 1,
        window_seconds: 30,
        cooldown_seconds: 2,
        action: { type: 'function', path: 'alerts::on-alert' },
      },
      {
        name: 'disabled',
        metric: 'svc.invocations.total',
        operator: '>=',
        threshold: 0,
        window_seconds: 5,
        enabled: false,
        action: { type: 'webhook', url },
      },
    ],
  });
  worker = await client(engine.url, 'obs-alerts');
  worker.registerFunction('alerts::fail', () => {
    throw new Error('boom');
  });
  worker.registerFunction('alerts::ok', () => ({ ok: true }));
  worker.registerFunction('alerts::on-alert', (payload: Record<string, unknown>) => {
    alertCalls.push(payload);
  });
  worker.registerFunction('alerts::on-log', (record: (typeof logEvents)[number]) => {
    logEvents.push(record);
  });
  worker.registerTrigger({ type: 'log', function_id: 'alerts::on-log', config: { level: 'warn' } });
  worker.registerFunction('alerts::on-trace', (event: { trace_ids: string[] }) => {
    traceEvents.push(...event.trace_ids);
  });
  worker.registerTrigger({ type: 'trace', function_id: 'alerts::on-trace', config: { status: 'error' } });
});

afterAll(async () => {
  await worker?.shutdown();
  await engine?.stop();
  await new Promise((r) => receiver?.close(r));
});

describe('alerts', () => {
  it('POSTs the alert to the webhook once per cooldown, and calls the function action', async () => {
    await expect(worker.trigger({ function_id: 'alerts::fail', payload: {} })).rejects.toThrow(/boom/);
    await waitFor(() => posts.length >= 1, 15_000, 'the webhook');
    expect(posts[0]).toMatchObject({
      alert: 'errors-seen',
      metric: 'svc.invocations.errors',
      operator: '>',
      threshold: 0,
      value: 1,
    });
    await expect(worker.trigger({ function_id: 'alerts::fail', payload: {} })).rejects.toThrow(/boom/);
    await waitFor(() => alertCalls.length >= 2, 15_000, 'two function actions (cooldown 2 s)');
    expect(alertCalls[0]).toMatchObject({ alert: 'calls-seen', metric: 'svc.invocations.total' });
    const firstTwo = alertCalls.slice(0, 2).map((c) => Date.parse(String(c.fired_at)));
    expect(firstTwo[1]! - firstTwo[0]!).toBeGreaterThanOrEqual(2000);
    await sleep(1500);
    expect(posts).toHaveLength(1); // cooldown 3600 s: the second error does not fire it again
    const list = await worker.trigger<{ alerts: { name: string; state: { fired_count: number } }[] }>({
      function_id: 'engine::alerts::list',
      payload: {},
    });
    const byName = Object.fromEntries(list.alerts.map((a) => [a.name, a.state.fired_count]));
    expect(byName).toMatchObject({ 'errors-seen': 1, disabled: 0 });
    const evaluated = await worker.trigger<{ alerts: { name: string; triggered: boolean; fired: boolean }[] }>({
      function_id: 'engine::alerts::evaluate',
      payload: {},
    });
    expect(evaluated.alerts.find((a) => a.name === 'errors-seen')).toMatchObject({ triggered: true, fired: false });
    expect(evaluated.alerts.find((a) => a.name === 'disabled')).toMatchObject({ triggered: false, fired: false });
    const rollups = await worker.trigger<{ rollups: { metric: string; window_seconds: number; value: number }[] }>({
      function_id: 'engine::rollups::list',
      payload: { metric: 'svc.invocations.errors' },
    });
    expect(rollups.rollups.map((r) => [r.window_seconds, r.value])).toEqual([
      [60, 2],
      [300, 2],
      [3600, 2],
    ]);
  });
});

describe('the log trigger', () => {
  it('fires its function for records of its level only', async () => {
    await worker.trigger({ function_id: 'engine::log::info', payload: { message: 'just info', service_name: 't' } });
    await worker.trigger({ function_id: 'engine::log::warn', payload: { message: 'a warning', service_name: 't' } });
    await waitFor(() => logEvents.some((e) => e.body === 'a warning'), 10_000, 'the log trigger');
    await sleep(300);
    expect(logEvents.filter((e) => e.body === 'just info')).toEqual([]);
    expect(logEvents.find((e) => e.body === 'a warning')).toMatchObject({ severity_text: 'WARN', service_name: 't' });
  });
});

describe('the trace trigger', () => {
  it('delivers the ids of traces with spans of its status, coalesced', async () => {
    await expect(worker.trigger({ function_id: 'alerts::fail', payload: {} })).rejects.toThrow(/boom/);
    await worker.trigger({ function_id: 'alerts::ok', payload: {} });
    const failed = await eventually(
      async () => {
        const s = await spans(worker, { name: 'alerts::fail', status: 'error' });
        return s.length >= 3 ? s : undefined;
      },
      10_000,
      'three failed spans',
    );
    await waitFor(() => failed.every((s) => traceEvents.includes(s.trace_id)), 10_000, 'the trace ids');
    const ok = await spans(worker, { name: 'alerts::ok' });
    expect(ok.length).toBeGreaterThan(0);
    for (const s of ok) expect(traceEvents).not.toContain(s.trace_id);
    expect(new Set(traceEvents).size).toBe(traceEvents.length); // each id once
  });
});

describe('svc logs', () => {
  it('prints the stored records, filtered, oldest first (text and --json)', async () => {
    await worker.trigger({
      function_id: 'engine::log::error',
      payload: { message: 'cli sees me', service_name: 'cli-t' },
    });
    const cli = (args: string[]) =>
      run(process.execPath, [join(ROOT, 'cli/dist/main.js'), 'logs', '--port', String(engine.port), ...args]);
    const json = await cli(['--service', 'cli-t', '--json']);
    const records = json.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { body: string; severity_text: string });
    expect(records).toEqual([expect.objectContaining({ body: 'cli sees me', severity_text: 'ERROR' })]);
    const text = await cli(['--level', 'error', '--service', 'cli-*']);
    expect(text.stdout).toMatch(/^\S+Z ERROR \[cli-t\] cli sees me$/m);
  });
});

describe('plain-HTTP endpoints on the engine port', () => {
  const http = (path: string) => request(`http://127.0.0.1:${engine.port}${path}`);

  it('GET /metrics answers the Prometheus text format with invocation and worker metrics', async () => {
    await worker.trigger({ function_id: 'alerts::ok', payload: {} });
    const res = await http('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.body.text();
    expect(text).toMatch(/^# TYPE svc_invocations_total counter$/m);
    expect(text).toMatch(/^svc_invocations_total\{function="alerts::ok"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_invocations_errors_total\{function="alerts::fail"\} 3$/m);
    expect(text).toMatch(/^svc_invocations_duration_bucket\{function="alerts::ok",le="\+Inf"\} [1-9]\d*$/m);
    expect(text).toMatch(/^svc_workers_connected\{runtime="node"\} [1-9]\d*$/m);
  });

  it('GET /health and GET /ready answer without a WebSocket', async () => {
    const health = await http('/health');
    expect(health.statusCode).toBe(200);
    expect(await health.body.json()).toMatchObject({ status: 'ok' });
    const ready = await http('/ready');
    expect(ready.statusCode).toBe(200);
    expect(await ready.body.json()).toMatchObject({ status: 'ready', workers: [{ name: 'svc-otel', state: 'ready' }] });
    const other = await http('/nope');
    expect(other.statusCode).toBe(426);
    await other.body.dump();
  });

  it('engine::health::check reports the real state of each component', async () => {
    const health = await eventually(
      async () => {
        const h = await worker.trigger<{
          status: string;
          components: Record<string, { status: string; details: unknown }>;
        }>({
          function_id: 'engine::health::check',
          payload: {},
        });
        return h.components.metrics?.status === 'healthy' ? h : undefined;
      },
      5_000,
      'healthy components',
    );
    expect(health.status).toBe('healthy');
    expect(health.components.otel).toMatchObject({ status: 'healthy', details: { exporter: 'memory' } });
    expect(health.components.spans).toMatchObject({ status: 'healthy', details: { max: 10000 } });
    expect(health.components.logs).toMatchObject({ status: 'healthy', details: { max: 1000 } });
    // the engine's own log lines are in the store too
    const ready = await worker.trigger<{ logs: { body: string; service_name: string }[] }>({
      function_id: 'engine::logs::list',
      payload: { search: 'svc ready', service: 'svc' },
    });
    expect(ready.logs.map((l) => l.body)).toContain('svc ready');
  });
});
