/**
 * One connection on a listener with access rules: every frame it sends passes here before the core. Frames are
 * handled in the order they arrive; one that waits for a hook (a registration hook) holds the frames behind it, as
 * the connection's own read loop would, except results, pings and cancels, which never wait (a hook may be
 * answered by this very worker). A frame that needs no hook costs one switch.
 */
import type {
  InvokeFunction,
  Message,
  RegisterFunction,
  RegisterTrigger,
  RegisterTriggerType,
  UnregisterTrigger,
} from '@svc/sdk';
import type { Connection } from '../../core/connection.js';
import type { Worker } from '../../core/worker.js';
import type { GateSession } from '../../transport/listener-gate.js';
import type { RbacHost } from './host.js';
import { checkInvoke } from './invoke-check.js';
import { triggerTypeAllowed, withPrefix, type ListenerAccess, type Session } from './policy.js';
import { PrefixedConnection } from './prefix-connection.js';
import {
  applyFunctionHook,
  applyTriggerHook,
  applyTriggerTypeHook,
  functionHookInput,
  triggerHookInput,
  triggerTypeHookInput,
} from './registration-hooks.js';

const NEVER_WAIT: ReadonlySet<string> = new Set(['invocationresult', 'ping', 'pong', 'cancelinvocation']);

type Step = void | Promise<void>;

export class GatedSession implements GateSession {
  private running = false;
  private readonly backlog: [Worker, Message, string | undefined][] = [];
  /** Ids a hook renamed (function ids, trigger ids): the worker unregisters by the id it knows. */
  private readonly renamedFunctions = new Map<string, string>();
  private readonly renamedTriggers = new Map<string, string>();

  constructor(
    readonly session: Session,
    private readonly access: ListenerAccess,
    private readonly host: RbacHost,
  ) {}

  wrap(conn: Connection): Connection {
    const prefix = this.session.functionRegistrationPrefix;
    return prefix === undefined ? conn : new PrefixedConnection(conn, prefix);
  }

  receive(worker: Worker, msg: Message, raw: string | undefined): void {
    if (NEVER_WAIT.has(msg.type)) return this.host.deliver(worker, msg, raw);
    if (this.running) {
      this.backlog.push([worker, msg, raw]);
      return;
    }
    this.run(worker, msg, raw);
  }

  private run(worker: Worker, msg: Message, raw: string | undefined): void {
    const step = this.handle(worker, msg, raw);
    if (step === undefined) return;
    this.running = true;
    step
      .catch((err: unknown) => this.host.logger.error({ err, type: msg.type }, 'access check failed; frame dropped'))
      .finally(() => {
        this.running = false;
        this.drain();
      });
  }

  private drain(): void {
    while (!this.running && this.backlog.length > 0) {
      const [worker, msg, raw] = this.backlog.shift()!;
      this.run(worker, msg, raw);
    }
  }

  private handle(worker: Worker, msg: Message, raw: string | undefined): Step {
    switch (msg.type) {
      case 'invokefunction':
        return this.invoke(worker, msg, raw);
      case 'registerfunction':
        return this.registerFunction(worker, msg);
      case 'unregisterfunction':
        return this.host.deliver(worker, {
          ...msg,
          id: withPrefix(this.session, this.renamedFunctions.get(msg.id) ?? msg.id),
        });
      case 'registertriggertype':
        return this.registerTriggerType(worker, msg);
      case 'registertrigger':
        return this.registerTrigger(worker, msg);
      case 'unregistertrigger':
        return this.unregisterTrigger(worker, msg);
      default:
        return this.host.deliver(worker, msg, raw);
    }
  }

  private invoke(worker: Worker, msg: InvokeFunction, raw: string | undefined): void {
    checkInvoke(this.session, this.access, this.host, worker, msg, raw);
  }

  private refused(worker: Worker, what: string, why: string): void {
    this.host.logger.warn({ workerId: worker.id, listener: this.access.listener }, `${what} refused: ${why}`);
  }

  private registerFunction(worker: Worker, msg: RegisterFunction): Step {
    if (!this.session.allowFunctionRegistration) {
      return this.refused(worker, `registration of function '${msg.id}'`, 'the session may not register functions');
    }
    const hook = this.access.rbac?.on_function_registration_function_id;
    if (hook === undefined) return this.host.deliver(worker, { ...msg, id: withPrefix(this.session, msg.id) });
    return this.host.call(hook, functionHookInput(msg, this.session)).then((outcome) => {
      const accepted = outcome.error === undefined ? applyFunctionHook(msg, outcome.result) : undefined;
      if (accepted === undefined) {
        return this.refused(worker, `registration of function '${msg.id}'`, `denied by ${hook}`);
      }
      if (accepted.id !== msg.id) this.renamedFunctions.set(msg.id, accepted.id);
      this.host.deliver(worker, { ...accepted, id: withPrefix(this.session, accepted.id) });
    });
  }

  private registerTriggerType(worker: Worker, msg: RegisterTriggerType): Step {
    if (!this.session.allowTriggerTypeRegistration) {
      return this.refused(worker, `registration of trigger type '${msg.id}'`, 'the session may not register types');
    }
    const hook = this.access.rbac?.on_trigger_type_registration_function_id;
    if (hook === undefined) return this.host.deliver(worker, msg);
    return this.host.call(hook, triggerTypeHookInput(msg, this.session)).then((outcome) => {
      const accepted = outcome.error === undefined ? applyTriggerTypeHook(msg, outcome.result) : undefined;
      if (accepted === undefined) {
        return this.refused(worker, `registration of trigger type '${msg.id}'`, `denied by ${hook}`);
      }
      this.host.deliver(worker, accepted);
    });
  }

  private registerTrigger(worker: Worker, msg: RegisterTrigger): Step {
    if (!triggerTypeAllowed(this.session, msg.trigger_type)) {
      return this.refused(worker, `trigger '${msg.id}'`, `trigger type '${msg.trigger_type}' is not allowed`);
    }
    const hook = this.access.rbac?.on_trigger_registration_function_id;
    if (hook === undefined) return this.bind(worker, msg, msg);
    return this.host.call(hook, triggerHookInput(msg, this.session)).then((outcome) => {
      const accepted = outcome.error === undefined ? applyTriggerHook(msg, outcome.result) : undefined;
      if (accepted === undefined) return this.refused(worker, `trigger '${msg.id}'`, `denied by ${hook}`);
      this.bind(worker, msg, accepted);
    });
  }

  private bind(worker: Worker, original: RegisterTrigger, accepted: RegisterTrigger): void {
    if (accepted.id !== original.id) this.renamedTriggers.set(original.id, accepted.id);
    this.host.deliver(worker, { ...accepted, function_id: withPrefix(this.session, accepted.function_id) });
  }

  private unregisterTrigger(worker: Worker, msg: UnregisterTrigger): void {
    const renamed = this.renamedTriggers.get(msg.id);
    if (renamed === undefined) return this.host.deliver(worker, msg);
    this.renamedTriggers.delete(msg.id);
    this.host.deliver(worker, { ...msg, id: renamed });
  }
}
