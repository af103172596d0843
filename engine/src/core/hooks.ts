/**
 * The one interface through which modules plug into the core (docs/hooks.md): registration interceptors,
 * dispatch middleware, action handlers and lifecycle observers. The core names no capability: what a module
 * does with a hook is its own business. Every list is copy-on-write, so installing or removing a hook never
 * disturbs a call already walking the list, and an empty list costs the hot path one length check.
 */
import type { ErrorBody, RegisterFunction, RegisterTrigger, RegisterTriggerType } from '@svc/sdk';
import type { CallRequest, InvocationOutcome } from './call.js';
import type { CoreLogger } from './logger.js';
import type { TopologyEvent } from './topology.js';
import type { Worker } from './worker.js';

/** A registration a worker asked for, before the core applies it. */
export type Registration =
  | { readonly kind: 'function'; readonly worker: Worker; readonly message: RegisterFunction }
  | { readonly kind: 'trigger'; readonly worker: Worker; readonly message: RegisterTrigger }
  | { readonly kind: 'trigger_type'; readonly worker: Worker; readonly message: RegisterTriggerType };

/** A module took over a function registration; `release()` runs when the worker unregisters the id or leaves. */
export interface Claim {
  release(): void;
}

/**
 * `undefined`: let it through (to the next interceptor, then the core). `refuse`: the worker is told (an `error`
 * frame, or a `triggerregistrationresult` for a trigger) and nothing is registered. `claim` (functions only): the
 * module executes the function itself; the core does not route it to the worker.
 */
export type RegistrationVerdict = undefined | { refuse: ErrorBody } | { claim: Claim };

export type RegistrationInterceptor = (registration: Registration) => RegistrationVerdict;

/**
 * Runs before a call is routed. `undefined` passes it on; an outcome answers it (a result, or an error such as
 * `forbidden`) and it is not routed. May return a promise; a call whose middleware are all synchronous stays
 * synchronous.
 */
export type DispatchVerdict = InvocationOutcome | undefined;
export type DispatchMiddleware = (call: CallRequest) => DispatchVerdict | Promise<DispatchVerdict>;

/** What a call with a non-sync `action` (other than `void`) does. `settle` answers the caller exactly once. */
export type ActionHandler = (call: CallRequest, settle: (outcome: InvocationOutcome) => void) => void;

export interface InvocationStarted {
  readonly invocationId: string;
  readonly functionId: string;
  /** Undefined for engine-internal calls. */
  readonly callerWorkerId: string | undefined;
  readonly executorWorkerId: string;
  /** The executor's worker name (its `name`, else its id), e.g. the service of a span. */
  readonly executorWorkerName: string;
  readonly traceId: string | undefined;
  /** The caller's W3C trace context, as it came with the call. */
  readonly traceparent: string | undefined;
  readonly baggage: string | undefined;
}

export interface InvocationSettled {
  /** Undefined when the call was answered before it was routed (middleware, action, no provider). */
  readonly invocationId: string | undefined;
  readonly functionId: string;
  readonly callerWorkerId: string | undefined;
  readonly executorWorkerId: string | undefined;
  readonly traceId: string | undefined;
  /** ms from the invocation's start; 0 when it was never started or an observer joined mid-way. */
  readonly durationMs: number;
  /**
   * `ok`, or the error code it ended with (`invocation_timeout`, `invocation_stopped`, the executor's own...),
   * or `cancelled` (the caller gave up) / `caller_disconnected` (the caller left; the executor was told).
   */
  readonly outcome: string;
  /** The error it ended with (undefined for `ok`, `cancelled` and `caller_disconnected`). */
  readonly error: ErrorBody | undefined;
}

/**
 * A caller cancelled (`cancelinvocation`) a call the core is not running itself: one a dispatch middleware or an
 * action handler is still answering (e.g. a call sent to another engine). The module that holds it may stop it.
 */
export interface CallCancelled {
  readonly callerWorkerId: string;
  readonly callerInvocationId: string;
}

/**
 * Each member is optional; observers run synchronously and must be cheap. A throwing observer is logged.
 *
 * Trace context: `invocationStarted` may return a W3C `traceparent` (e.g. its span of this hop); the executor
 * then receives that one instead of the caller's (the transport splices it into a forwarded frame). When several
 * observers return one, the last wins; returning nothing (the usual case) leaves the caller's in place.
 */
export interface LifecycleObserver {
  topology?(event: TopologyEvent): void;
  invocationStarted?(event: InvocationStarted): string | undefined | void;
  invocationSettled?(event: InvocationSettled): void;
  callCancelled?(event: CallCancelled): void;
}

/** `InvocationSettled.outcome` of a call that succeeded. */
export const SETTLED_OK = 'ok';

const NONE: readonly never[] = Object.freeze([]);

export class Hooks {
  interceptors: readonly RegistrationInterceptor[] = NONE;
  middleware: readonly DispatchMiddleware[] = NONE;
  private readonly actions = new Map<string, ActionHandler>();
  topologyObservers: readonly LifecycleObserver[] = NONE;
  startObservers: readonly LifecycleObserver[] = NONE;
  settleObservers: readonly LifecycleObserver[] = NONE;
  cancelObservers: readonly LifecycleObserver[] = NONE;

  constructor(private readonly logger: CoreLogger) {}

  /** Interceptors run in installation order; the first refusal or claim ends the walk. */
  addInterceptor(interceptor: RegistrationInterceptor): () => void {
    this.interceptors = [...this.interceptors, interceptor];
    return () => (this.interceptors = this.interceptors.filter((i) => i !== interceptor));
  }

  /** Middleware run in installation order. */
  addMiddleware(middleware: DispatchMiddleware): () => void {
    this.middleware = [...this.middleware, middleware];
    return () => (this.middleware = this.middleware.filter((m) => m !== middleware));
  }

  /** One handler per action type; installing a second one for the same type throws. */
  setActionHandler(actionType: string, handler: ActionHandler): () => void {
    if (this.actions.has(actionType)) throw new Error(`an action handler for '${actionType}' is already installed`);
    this.actions.set(actionType, handler);
    return () => {
      if (this.actions.get(actionType) === handler) this.actions.delete(actionType);
    };
  }

  actionHandler(actionType: string): ActionHandler | undefined {
    return this.actions.get(actionType);
  }

  observe(observer: LifecycleObserver): () => void {
    if (observer.topology) this.topologyObservers = [...this.topologyObservers, observer];
    if (observer.invocationStarted) this.startObservers = [...this.startObservers, observer];
    if (observer.invocationSettled) this.settleObservers = [...this.settleObservers, observer];
    if (observer.callCancelled) this.cancelObservers = [...this.cancelObservers, observer];
    return () => {
      this.cancelObservers = this.cancelObservers.filter((o) => o !== observer);
      this.topologyObservers = this.topologyObservers.filter((o) => o !== observer);
      this.startObservers = this.startObservers.filter((o) => o !== observer);
      this.settleObservers = this.settleObservers.filter((o) => o !== observer);
    };
  }

  emitTopology(event: TopologyEvent): void {
    const observers = this.topologyObservers;
    for (let i = 0; i < observers.length; i++) {
      try {
        observers[i]!.topology!(event);
      } catch (err) {
        this.logger.error({ err, event }, 'topology observer failed');
      }
    }
  }

  /** Tells the start observers; returns the traceparent one of them put in place of the caller's, if any. */
  emitStarted(event: InvocationStarted): string | undefined {
    const observers = this.startObservers;
    let traceparent: string | undefined;
    for (let i = 0; i < observers.length; i++) {
      try {
        const next = observers[i]!.invocationStarted!(event);
        if (typeof next === 'string') traceparent = next;
      } catch (err) {
        this.logger.error({ err }, 'invocation observer failed');
      }
    }
    return traceparent;
  }

  emitSettled(event: InvocationSettled): void {
    const observers = this.settleObservers;
    for (let i = 0; i < observers.length; i++) {
      try {
        observers[i]!.invocationSettled!(event);
      } catch (err) {
        this.logger.error({ err }, 'invocation observer failed');
      }
    }
  }

  emitCancelled(event: CallCancelled): void {
    const observers = this.cancelObservers;
    for (let i = 0; i < observers.length; i++) {
      try {
        observers[i]!.callCancelled!(event);
      } catch (err) {
        this.logger.error({ err }, 'cancel observer failed');
      }
    }
  }
}
