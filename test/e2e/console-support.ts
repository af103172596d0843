/**
 * The stack the console browser test drives: the engine with its embedded default config (all five capability
 * workers on free ports, file stores in a temp dir), the sample worker, `svc console` and headless Chromium
 * (Debian's `chromium`, driven by playwright-core; scripts/services.sh installs it).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  ROOT,
  freePort,
  rawCall,
  spawnWorker,
  waitFor,
  waitForEngine,
  waitForFunction,
  type Child,
} from '../harness.js';

export const CHROMIUM = process.env.SVC_CHROMIUM ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
export const SCREENSHOTS = join(ROOT, 'test-artifacts', 'console');

export interface ConsoleStack {
  engineUrl: string;
  consoleUrl: string;
  enginePort: number;
  httpPort: number;
  streamPort: number;
  browser: Browser;
  page: Page;
  call(functionId: string, data?: unknown): Promise<{ result?: unknown; error?: { code: string; message: string } }>;
  /** Spawns a worker script connected to the engine; stopped by `stop()` if the test does not. */
  spawn(script: string): Child;
  /** Starts another `svc console` with these extra arguments; stopped by `stop()`. */
  startConsole(args: string[]): Promise<string>;
  stop(): Promise<void>;
}

const CAPABILITY_FUNCTIONS = ['state::set', 'stream::list_all', 'cron::list', 'engine::queue::list_topics', 'publish'];

export async function startConsoleStack(): Promise<ConsoleStack> {
  const children: Child[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-console-'));
  const [enginePort, httpPort, streamPort] = [await freePort(), await freePort(), await freePort()];
  const engineUrl = `ws://127.0.0.1:${enginePort}`;
  const engine = spawnWorker('cli/dist/main.js', {
    SVC_PORT: String(enginePort),
    SVC_HTTP_PORT: String(httpPort),
    SVC_STREAM_PORT: String(streamPort),
    SVC_HTTP_HOST: '127.0.0.1',
    SVC_STREAM_HOST: '127.0.0.1',
    SVC_DATA_DIR: dataDir,
  });
  children.push(engine);
  await waitForEngine(engineUrl, 20000);
  for (const fn of CAPABILITY_FUNCTIONS) await waitForFunction(engineUrl, fn, 20000);
  const sample = spawnWorker('test/e2e/console-fixtures/sample-worker.mjs', { SVC_URL: engineUrl });
  children.push(sample);
  await sample.waitForOutput('ready', 20000);
  const startConsole = async (args: string[]): Promise<string> => {
    const port = await freePort();
    const child = spawnWorker('cli/dist/main.js', {}, ['console', '--port', String(port), ...args]);
    children.push(child);
    await child.waitForOutput('svc console ready', 20000);
    return `http://127.0.0.1:${port}`;
  };
  const consoleUrl = await startConsole([
    '--bridge-port',
    String(enginePort),
    '--engine-port',
    String(httpPort),
    '--ws-port',
    String(streamPort),
    '--enable-flow',
  ]);
  await waitForFunction(engineUrl, 'engine::console::invoke', 20000);
  // The console's routes answer on the engine's REST port too, once svc-http has bound them.
  await waitFor(async () => (await fetch(`http://127.0.0.1:${httpPort}/_console/status`)).ok, 20000, 'REST _console');
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    engineUrl,
    consoleUrl,
    enginePort,
    httpPort,
    streamPort,
    browser,
    page,
    call: (functionId, data = {}) => rawCall(engineUrl, functionId, data, 10000),
    spawn: (script) => {
      const child = spawnWorker(script, { SVC_URL: engineUrl });
      children.push(child);
      return child;
    },
    startConsole,
    stop: async () => {
      await browser.close().catch(() => undefined);
      for (const child of children.reverse()) await child.stop(5000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Opens a console page and waits until the app has rendered its navigation. */
export async function open(stack: ConsoleStack, path: string, page: Page = stack.page): Promise<Page> {
  await page.goto(`${stack.consoleUrl}${path}`);
  await page.getByTestId('engine-status').waitFor();
  return page;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
