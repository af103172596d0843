/**
 * `modules::http_functions::HttpFunctionsModule`: functions registered with an HTTP `invocation` config are run by the
 * engine as outbound HTTP requests under the URL policy (README.md here).
 *
 * A registration interceptor (docs/hooks.md) claims every such registration: it checks the URL against the
 * policy and that the named secrets exist (refusing with `http_functions_unavailable` and the reason otherwise),
 * then registers the function id on the module's own in-process client, so invocations route to it like to any
 * worker's function. Several workers may register the same id: the last registration's config is used, and the
 * id stays registered until the last of them is gone.
 *
 * Owns: its in-process client, and an undici Agent whose connect step enforces the address policy. `close()`
 * removes the interceptor, unregisters the functions and closes the agent; it is idempotent.
 */
import type { FunctionRef, HttpInvocationRef, SvcClient } from '@svc/sdk';
import { Agent } from 'undici';
import type { EngineModule, ModuleContext, Registration, RegistrationVerdict } from '../module.js';
import { checkSecrets, type Env } from './auth.js';
import { HTTP_FUNCTIONS_UNAVAILABLE, type HttpFunctionRegistration } from './registration.js';
import { httpFunctionHandler, type HttpFunctionDeps } from './http-function.js';
import { guardedConnector, type Resolver } from './security/guarded-connector.js';
import { UrlPolicy, type SecurityPolicy } from './security/url-policy.js';

export const HTTP_FUNCTIONS_MODULE_CLASS = 'modules::http_functions::HttpFunctionsModule';

export interface HttpFunctionsModuleConfig {
  security: SecurityPolicy;
  /** Default outbound timeout when a registration has no `timeout_ms`. Default 30000 ms. */
  default_timeout_ms?: number;
  /** Largest response body accepted. Default 10 MiB. */
  max_response_bytes?: number;
  /** Redirect hops followed (each one checked). Default 5. */
  max_redirects?: number;
  /** For tests: a resolver in place of the system one. */
  resolver?: Resolver;
  /** Where secrets are read from. Default: the engine's environment. */
  env?: Env;
}

interface Entry {
  ref: FunctionRef;
  /** One config per registering worker, in registration order; the last one is used. */
  registrations: Array<{ token: object; invocation: HttpInvocationRef }>;
}

export class HttpFunctionsModule implements EngineModule {
  readonly name = HTTP_FUNCTIONS_MODULE_CLASS;
  private client: SvcClient | undefined;
  private agent: Agent | undefined;
  private readonly entries = new Map<string, Entry>();
  private closing: Promise<void> | undefined;
  private ctx: ModuleContext | undefined;
  private removeInterceptor: (() => void) | undefined;

  constructor(private readonly config: HttpFunctionsModuleConfig) {}

  async start(ctx: ModuleContext): Promise<void> {
    this.ctx = ctx;
    const policy = new UrlPolicy(this.config.security);
    const timeout = this.config.default_timeout_ms ?? 30_000;
    this.agent = new Agent({
      connect: guardedConnector({
        blockPrivateIps: this.config.security.block_private_ips,
        connectTimeoutMs: Math.min(timeout, 10_000),
        ...(this.config.resolver ? { resolver: this.config.resolver } : {}),
      }),
    });
    const deps: HttpFunctionDeps = {
      policy,
      dispatcher: this.agent,
      limits: {
        maxRedirects: this.config.max_redirects ?? 5,
        maxResponseBytes: this.config.max_response_bytes ?? 10 * 1024 * 1024,
      },
      env: this.config.env ?? process.env,
      defaultTimeoutMs: timeout,
    };
    this.client = await ctx.connect('svc-http-functions');
    this.removeInterceptor = ctx.hooks.addRegistrationInterceptor((r) => this.intercept(r, deps));
  }

  /** Claims function registrations that carry an HTTP `invocation` config; lets everything else through. */
  private intercept(r: Registration, deps: HttpFunctionDeps): RegistrationVerdict {
    if (r.kind !== 'function' || r.message.invocation == null) return undefined;
    const msg = r.message;
    try {
      const handle = this.register(
        {
          functionId: msg.id,
          invocation: msg.invocation!,
          description: msg.description,
          request_format: msg.request_format,
          response_format: msg.response_format,
          metadata: msg.metadata,
          workerId: r.worker.id,
        },
        deps,
      );
      return { claim: { release: () => handle.unregister() } };
    } catch (err) {
      const message = `Function ${msg.id} refused: ${(err as Error).message}`;
      return { refuse: { code: HTTP_FUNCTIONS_UNAVAILABLE, message } };
    }
  }

  private register(registration: HttpFunctionRegistration, deps: HttpFunctionDeps): { unregister(): void } {
    const { functionId, invocation } = registration;
    validateInvocation(invocation);
    deps.policy.check(invocation.url);
    checkSecrets(invocation.auth, deps.env);
    const token = {};
    let entry = this.entries.get(functionId);
    if (!entry) {
      const current = (): HttpInvocationRef => {
        const list = this.entries.get(functionId)?.registrations;
        return (list?.[list.length - 1] as { invocation: HttpInvocationRef } | undefined)?.invocation ?? invocation;
      };
      const ref = (this.client as SvcClient).registerFunction(
        functionId,
        httpFunctionHandler(functionId, current, deps),
        {
          ...(registration.description !== undefined ? { description: registration.description } : {}),
          ...(registration.metadata !== undefined ? { metadata: registration.metadata } : {}),
        },
      );
      entry = { ref, registrations: [] };
      this.entries.set(functionId, entry);
    }
    entry.registrations.push({ token, invocation });
    this.ctx?.logger.info({ functionId, url: invocation.url }, 'HTTP function registered');
    return { unregister: () => this.release(functionId, token) };
  }

  private release(functionId: string, token: object): void {
    const entry = this.entries.get(functionId);
    if (!entry) return;
    entry.registrations = entry.registrations.filter((r) => r.token !== token);
    if (entry.registrations.length > 0) return;
    this.entries.delete(functionId);
    entry.ref.unregister();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.removeInterceptor?.();
      this.removeInterceptor = undefined;
      for (const entry of this.entries.values()) entry.ref.unregister();
      this.entries.clear();
      await this.client?.shutdown();
      await this.agent?.close();
    })();
    return this.closing;
  }
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
const RESERVED_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** The registration frame comes from a worker: check its shape before trusting it. */
function validateInvocation(invocation: HttpInvocationRef): void {
  if (typeof invocation !== 'object' || invocation === null || typeof invocation.url !== 'string') {
    throw new Error('invocation.url must be a string');
  }
  if (invocation.method !== undefined && !METHODS.has(String(invocation.method).toUpperCase())) {
    throw new Error(`invocation.method '${String(invocation.method)}' is not one of GET, POST, PUT, PATCH, DELETE`);
  }
  const t = invocation.timeout_ms;
  if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t) || t <= 0)) {
    throw new Error('invocation.timeout_ms must be a positive number of milliseconds');
  }
  const headers = invocation.headers;
  if (headers !== undefined && (typeof headers !== 'object' || headers === null || Array.isArray(headers))) {
    throw new Error('invocation.headers must be an object of string values');
  }
  for (const [name, v] of Object.entries(headers ?? {})) {
    if (typeof v !== 'string') throw new Error('invocation.headers must be an object of string values');
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      throw new Error(`invocation.headers may not set '${name}' (the engine sets it for the request)`);
    }
  }
  const auth = invocation.auth as { type?: unknown } | undefined;
  if (auth !== undefined && !['hmac', 'bearer', 'api_key'].includes(String(auth?.type))) {
    throw new Error("invocation.auth.type must be 'hmac', 'bearer' or 'api_key'");
  }
}
