/**
 * The HTTP-functions module's registration interceptor, over in-memory connections: it claims registrations with
 * an HTTP `invocation` config (the function then lives on the module's own client), refuses those outside its
 * URL policy, releases a claim when the worker leaves, and lets every other registration through.
 */
import { describe, expect, it } from 'vitest';
import { HttpFunctionsModule } from '../src/modules/http-functions/module.js';
import { moduleTestBed } from './module-context.js';

const settle = () => new Promise((r) => setTimeout(r, 20));

async function setup() {
  const bed = moduleTestBed();
  const module = new HttpFunctionsModule({
    security: { url_allowlist: ['https://api.example.test/*'], block_private_ips: true, require_https: true },
  });
  await module.start(bed.ctx);
  return { ...bed, module };
}

describe('HTTP-functions registration interceptor', () => {
  it('claims an allowed HTTP function: it is routed to the module, not to the worker, until the worker leaves', async () => {
    const { core, connect, module } = await setup();
    const w = connect();
    core.receive(w.worker, {
      type: 'registerfunction',
      id: 'ext::fn',
      invocation: { url: 'https://api.example.test/fn' },
    });
    await settle();
    const entry = core.functions.get('ext::fn');
    expect(entry?.replicas.map((r) => r.worker.name)).toEqual(['svc-http-functions']);
    expect(w.worker.claims.has('ext::fn')).toBe(true);
    expect(w.conn.of('error')).toHaveLength(0);
    core.detach(w.worker);
    await settle();
    expect(core.functions.get('ext::fn')).toBeUndefined();
    await module.close();
  });

  it('refuses a URL outside the allowlist with http_functions_unavailable and the reason', async () => {
    const { core, connect, module } = await setup();
    const w = connect();
    core.receive(w.worker, { type: 'registerfunction', id: 'ext::bad', invocation: { url: 'https://evil.test/x' } });
    const [error] = w.conn.of('error');
    expect(error?.error.code).toBe('http_functions_unavailable');
    expect(error?.error.message).toContain('Function ext::bad refused');
    expect(core.functions.get('ext::bad')).toBeUndefined();
    await module.close();
  });

  it('lets plain registrations through, and stops claiming once closed', async () => {
    const { core, connect, module } = await setup();
    const w = connect();
    core.receive(w.worker, { type: 'registerfunction', id: 'plain' });
    expect(core.functions.get('plain')?.replicas[0]?.worker).toBe(w.worker);
    await module.close();
    core.receive(w.worker, {
      type: 'registerfunction',
      id: 'ext::late',
      invocation: { url: 'https://api.example.test/x' },
    });
    expect(w.worker.claims.has('ext::late')).toBe(false);
  });
});
