/**
 * Shared set-up of the access-control tests: one engine with an open listener (the main port) and listeners with
 * rules, and a "host" worker on the open listener (the real iii-sdk) that provides the auth function, the hooks,
 * the middleware and the functions RBAC workers try to call.
 */
import { registerWorker, type IIIClient, type MiddlewareFunctionInput } from 'iii-sdk';
import { freePort, startEngine, waitFor, type EngineProcess } from '../harness.js';

export interface RbacRig {
  engine: EngineProcess;
  /** ws:// URL of the listener with RBAC and the middleware. */
  rbacUrl: string;
  /** ws:// URL of a listener with RBAC (another expose list, no auth function, no middleware). */
  strictUrl: string;
  host: IIIClient;
  authCalls: Record<string, unknown>[];
  hookCalls: { hook: string; input: Record<string, unknown> }[];
  close(): Promise<void>;
}

type Input = Record<string, unknown>;

const TOKENS: Record<string, Input> = {
  'valid-token': {
    allowed_functions: ['test::ew::valid-token-echo'],
    allow_trigger_type_registration: true,
    context: { role: 'admin', user_id: 'user-1' },
  },
  'restricted-token': {
    allowed_functions: ['engine::register_trigger'],
    forbidden_functions: ['test::ew::public::echo'],
    allowed_trigger_types: ['test-rbac-trigger'],
    context: { role: 'restricted', user_id: 'user-2' },
  },
  'prefix-token': {
    allowed_functions: ['engine::register_trigger'],
    allow_trigger_type_registration: true,
    context: { user_id: 'user-prefix' },
    function_registration_prefix: 'test-prefix',
  },
  'no-register-token': { allow_function_registration: false, context: { user_id: 'user-3' } },
  'bad-shape-token': { allowed_functions: 'everything' },
};

export function connect(url: string, headers: Record<string, string> = {}): IIIClient {
  return registerWorker(url, { headers, otel: { enabled: false } });
}

function registerHooks(host: IIIClient, rig: Pick<RbacRig, 'authCalls' | 'hookCalls'>): void {
  host.registerFunction('test::rbac::auth', async (input: Input) => {
    rig.authCalls.push(input);
    const token = (input.headers as Record<string, string> | undefined)?.['x-test-token'];
    if (token === undefined) return { context: { role: 'anonymous', user_id: 'anonymous' } };
    if (token === 'null-token') return null;
    const result = TOKENS[token];
    if (result === undefined) throw new Error('invalid token');
    return result;
  });
  host.registerFunction('test::rbac::middleware', async (input: MiddlewareFunctionInput) => {
    rig.hookCalls.push({ hook: 'middleware', input: input });
    if (input.function_id === 'test::ew::public::blocked') throw new Error('middleware says no');
    const payload = { ...input.payload, _intercepted: true, _caller: input.context.user_id };
    return host.trigger({ function_id: input.function_id, payload });
  });
  const hook = (name: string, deny: (input: Input) => boolean, answer: (input: Input) => unknown) =>
    host.registerFunction(`test::rbac::${name}`, async (input: Input) => {
      rig.hookCalls.push({ hook: name, input });
      if (deny(input)) throw new Error(`denied by ${name}`);
      return answer(input);
    });
  const id = (key: string) => (input: Input) => String(input[key]);
  hook(
    'on-function-reg',
    (i) => id('function_id')(i).startsWith('denied::'),
    (i) =>
      id('function_id')(i).startsWith('rename::')
        ? { function_id: id('function_id')(i).replace('rename::', 'renamed::'), metadata: { stamped: true } }
        : id('function_id')(i).startsWith('null::')
          ? null
          : {},
  );
  hook(
    'on-trigger-type-reg',
    (i) => id('trigger_type_id')(i).startsWith('denied-tt::'),
    () => ({}),
  );
  hook(
    'on-trigger-reg',
    (i) => id('function_id')(i).startsWith('denied-trig::'),
    (i) => (id('function_id')(i).startsWith('reconf::') ? { config: { rewritten: true } } : {}),
  );
}

function registerTargets(host: IIIClient): void {
  host.registerTriggerType(
    { id: 'test-rbac-trigger', description: 'Trigger type for RBAC tests' },
    { registerTrigger: async () => undefined, unregisterTrigger: async () => undefined },
  );
  host.registerTriggerType(
    { id: 'other-trigger', description: 'A type restricted sessions may not use' },
    { registerTrigger: async () => undefined, unregisterTrigger: async () => undefined },
  );
  const echo = (tag: string) => async (data: Input) => ({ echoed: data, [tag]: true });
  host.registerFunction('test::ew::public::echo', echo('public'));
  host.registerFunction('test::ew::valid-token-echo', echo('valid_token'));
  host.registerFunction('test::ew::meta-public', echo('meta'), { metadata: { ew_public: true } });
  host.registerFunction('test::ew::meta-tagged', echo('tagged'), { metadata: { tier: 'gold-plus' } });
  host.registerFunction('test::ew::private', echo('private'));
  host.registerFunction('test::ew::public::blocked', echo('blocked'));
  host.registerFunction('strict::only', echo('strict'));
}

export async function startRbacRig(): Promise<RbacRig> {
  const [rbacPort, strictPort] = [await freePort(), await freePort()];
  const engine = await startEngine({
    config: {
      host: '127.0.0.1',
      listeners: [
        {
          name: 'rbac',
          port: rbacPort,
          host: '127.0.0.1',
          middleware_function_id: 'test::rbac::middleware',
          rbac: {
            auth_function_id: 'test::rbac::auth',
            on_function_registration_function_id: 'test::rbac::on-function-reg',
            on_trigger_registration_function_id: 'test::rbac::on-trigger-reg',
            on_trigger_type_registration_function_id: 'test::rbac::on-trigger-type-reg',
            expose_functions: [
              'match("test::ew::public::*")',
              'match("engine::functions::list")',
              'match("engine::functions::info")',
              { metadata: { ew_public: true } },
              { metadata: { tier: 'match("gold*")' } },
            ],
          },
        },
        { name: 'strict', port: strictPort, host: '127.0.0.1', rbac: { expose_functions: ['match("strict::*")'] } },
      ],
    },
  });
  const rig: RbacRig = {
    engine,
    rbacUrl: `ws://127.0.0.1:${rbacPort}`,
    strictUrl: `ws://127.0.0.1:${strictPort}`,
    host: connect(engine.url),
    authCalls: [],
    hookCalls: [],
    close: async () => {
      await rig.host.shutdown();
      await engine.stop();
    },
  };
  registerHooks(rig.host, rig);
  registerTargets(rig.host);
  await waitFor(() => listsFunction(rig.host, 'strict::only'), 10_000, 'host functions');
  return rig;
}

export async function listsFunction(client: IIIClient, functionId: string): Promise<boolean> {
  const list = await client.trigger<unknown, { functions: { function_id: string }[] }>({
    function_id: 'engine::functions::list',
    payload: {},
  });
  return list.functions.some((f) => f.function_id === functionId);
}

export async function listsTriggerType(client: IIIClient, typeId: string): Promise<boolean> {
  const list = await client.trigger<unknown, { triggers: { id: string }[] }>({
    function_id: 'engine::triggers::list',
    payload: {},
  });
  return list.triggers.some((t) => t.id === typeId);
}

export async function registeredTriggers(
  client: IIIClient,
): Promise<{ id: string; trigger_type: string; function_id: string; config: unknown }[]> {
  const list = await client.trigger<unknown, { registered_triggers: [] }>({
    function_id: 'engine::registered-triggers::list',
    payload: {},
  });
  return list.registered_triggers;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
