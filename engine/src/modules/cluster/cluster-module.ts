/**
 * The cluster module: engines sharing a `cluster:` config (the same NATS servers and name) route as one fabric
 * (docs/cluster.md). It plugs into the core with the hook interface only:
 * - a dispatch middleware routes a call to another engine when that engine provides the function (weighted by
 *   replica counts when this engine has replicas too);
 * - a topology observer re-announces this engine's registry on every change and cancels the remote calls of a
 *   caller that disconnects;
 * - a peer view (`ctx.engine.setPeerView`) lets the `engine::*` listings and `hasFunction` see the whole cluster.
 * Membership is soft state: each engine announces itself every heartbeat; one silent past the timeout, or this
 * engine's own loss of NATS, drops it from routing and fails its calls in flight.
 */
import { randomUUID } from 'node:crypto';
import { connect, Events, type NatsConnection } from 'nats';
import type { ClusterConfig } from '@svc/config';
import type { SvcClient } from '@svc/sdk';
import type { CallRequest, DispatchVerdict, EngineModule, ModuleContext } from '../module.js';
import { IncomingCalls } from './incoming.js';
import { TriggerMirror } from './mirror.js';
import { RemoteCalls } from './outgoing.js';
import { PeerDirectory, type PeerChange } from './peers.js';
import { buildAnnouncement } from './snapshot.js';
import { statusOf, CLUSTER_STATUS_FUNCTION } from './status.js';
import { encode, parseAnnouncement, subjectsOf, type Subjects } from './wire.js';

export const CLUSTER_MODULE = 'modules::cluster::ClusterModule';
/** Coalesces a burst of registrations into one announcement. */
const ANNOUNCE_DEBOUNCE_MS = 20;

export class ClusterModule implements EngineModule {
  readonly name = CLUSTER_MODULE;
  readonly engineId = randomUUID();
  private ctx: ModuleContext | undefined;
  private nc: NatsConnection | undefined;
  private client: SvcClient | undefined;
  private remote: RemoteCalls | undefined;
  private incoming: IncomingCalls | undefined;
  private mirror: TriggerMirror | undefined;
  private readonly subjects: Subjects;
  private readonly peers: PeerDirectory;
  private readonly uninstall: (() => void)[] = [];
  private heartbeat: NodeJS.Timeout | undefined;
  private announceTimer: NodeJS.Timeout | undefined;
  private connected = false;
  private closed = false;
  private outageSinceMs: number | undefined = Date.now();

  constructor(private readonly config: ClusterConfig) {
    this.subjects = subjectsOf(config.name);
    this.peers = new PeerDirectory(this.engineId, (change) => this.onPeerChange(change));
  }

  async start(ctx: ModuleContext): Promise<void> {
    this.ctx = ctx;
    const client = await ctx.connect('svc-cluster');
    this.client = client;
    this.mirror = new TriggerMirror(client, ctx.logger);
    client.registerFunction(CLUSTER_STATUS_FUNCTION, () => this.status(), {
      description: 'This engine, its cluster, its NATS connection and the engines it routes to',
    });
    ctx.engine.setPeerView(this.peers);
    this.uninstall.push(
      () => ctx.engine.setPeerView(undefined),
      ctx.hooks.addDispatchMiddleware((call) => this.route(call, undefined)),
      ctx.hooks.observe({
        topology: (event) => {
          if (event.kind === 'worker' && event.event === 'worker_disconnected') this.remote?.callerGone(event.workerId);
          this.scheduleAnnounce();
        },
        callCancelled: (event) => this.remote?.cancelledByCaller(event.callerWorkerId, event.callerInvocationId),
      }),
    );
    this.heartbeat = setInterval(() => this.tick(), this.config.heartbeat_interval_ms);
    this.heartbeat.unref();
    // NATS may be down at start-up: the engine serves its own workers meanwhile and joins once it connects.
    connect({
      servers: [...this.config.nats],
      name: `svc-engine ${this.engineId}`,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      pingInterval: this.config.heartbeat_interval_ms * 2,
      maxPingOut: 2,
      waitOnFirstConnect: true,
      // nats.js otherwise captures up to three stack traces per request (for its own error messages): ~40% of an
      // engine's CPU when every call crosses engines. Our errors name the engine and function instead.
      noAsyncTraces: true,
    }).then(
      (nc) => this.onConnected(nc),
      (err: unknown) => ctx.logger.error({ err }, 'cluster: cannot connect to NATS'),
    );
    ctx.logger.info({ engine: this.engineId, cluster: this.config.name, nats: this.config.nats }, 'cluster: starting');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    clearTimeout(this.announceTimer);
    for (const undo of this.uninstall.splice(0).reverse()) undo();
    this.mirror?.clear();
    this.incoming?.close();
    this.remote?.failAll('this engine is stopping');
    this.remote?.close();
    const nc = this.nc;
    if (nc !== undefined && !nc.isClosed()) {
      if (this.ctx !== undefined) {
        const bye = { ...buildAnnouncement(this.ctx.engine, this.engineId, this.ctx.engineUrl), leaving: true };
        nc.publish(this.subjects.announce, encode(bye));
      }
      await nc.drain().catch(() => nc.close());
    }
  }

  /** The dispatch middleware: undefined lets the core route locally. */
  private route(call: CallRequest, excluded: Set<string> | undefined): DispatchVerdict | Promise<DispatchVerdict> {
    const providers = this.peers.providers(call.functionId);
    if (providers === undefined || this.remote === undefined) return undefined;
    if (call.action !== undefined && call.action.type !== 'void') return undefined; // the action's handler decides
    if (call.caller !== undefined && call.caller.id === this.client?.workerId) return undefined; // a remote call
    const local = this.ctx!.engine.localReplicas(call.functionId);
    let total = local;
    for (const p of providers) if (excluded === undefined || !excluded.has(p.engineId)) total += p.replicas;
    if (total === local) return undefined;
    let pick = Math.random() * total - local;
    if (pick < 0) return undefined;
    for (const p of providers) {
      if (excluded !== undefined && excluded.has(p.engineId)) continue;
      pick -= p.replicas;
      if (pick < 0) {
        return this.remote.invoke(call, p.engineId, (c, ex) => this.route(c, ex), excluded ?? new Set());
      }
    }
    return undefined;
  }

  private onConnected(nc: NatsConnection): void {
    const ctx = this.ctx!;
    if (this.closed) {
      void nc.close();
      return;
    }
    this.nc = nc;
    this.remote = new RemoteCalls(nc, this.subjects, this.engineId, ctx.logger);
    this.incoming = new IncomingCalls(nc, this.client!, ctx.logger);
    this.incoming.start(this.subjects, this.engineId);
    nc.subscribe(this.subjects.announce, {
      callback: (err, msg) => {
        if (err !== null) return;
        const parsed = parseAnnouncement(msg.data);
        if (parsed.ok) this.peers.apply(parsed.value, Date.now());
        else ctx.logger.warn({ reason: parsed.reason }, 'cluster: dropped a malformed announcement');
      },
    });
    this.setConnected(true);
    void this.watchStatus(nc);
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect) this.setConnected(false);
      else if (s.type === Events.Reconnect) this.setConnected(true);
    }
  }

  private setConnected(connected: boolean): void {
    if (this.connected === connected) return;
    this.connected = connected;
    const logger = this.ctx!.logger;
    if (connected) {
      logger.info({ downMs: Date.now() - (this.outageSinceMs ?? Date.now()) }, 'cluster: connected to NATS');
      this.outageSinceMs = undefined;
      this.announce();
      return;
    }
    this.outageSinceMs = Date.now();
    logger.warn('cluster: lost NATS; routing to this engine only until it is back');
    // Partitioned: what this engine knows of the others is no longer true, and no answer can come back.
    this.peers.dropAll('this engine lost its NATS connection');
    this.remote?.failAll('this engine lost its NATS connection');
  }

  private tick(): void {
    this.peers.expire(Date.now(), this.config.heartbeat_timeout_ms);
    this.announce();
  }

  private scheduleAnnounce(): void {
    if (this.announceTimer !== undefined || this.closed) return;
    this.announceTimer = setTimeout(() => {
      this.announceTimer = undefined;
      this.announce();
      this.syncMirror();
    }, ANNOUNCE_DEBOUNCE_MS);
  }

  private announce(): void {
    const nc = this.nc;
    if (nc === undefined || !this.connected || nc.isClosed() || this.closed) return;
    const ctx = this.ctx!;
    nc.publish(this.subjects.announce, encode(buildAnnouncement(ctx.engine, this.engineId, ctx.engineUrl)));
  }

  private onPeerChange(change: PeerChange): void {
    const logger = this.ctx!.logger;
    if (change.kind === 'joined') {
      logger.info({ peer: change.peer.id, url: change.peer.url }, 'cluster: engine joined');
      this.announce(); // the newcomer learns of this engine at once, not at the next heartbeat
    } else if (change.kind === 'left') {
      logger.warn({ peer: change.peer.id, why: change.why }, 'cluster: engine left');
      this.remote?.engineGone(change.peer.id, change.why);
    }
    this.syncMirror();
  }

  private syncMirror(): void {
    const ctx = this.ctx;
    if (ctx === undefined || this.mirror === undefined || this.closed) return;
    const socketWorkers = new Set(ctx.engine.listWorkers().flatMap((w) => (w.kind === 'ws' ? [w.id] : [])));
    const localTypes = new Set(
      ctx.engine
        .listTriggerTypes()
        .filter((t) => t.providerIds.some((id) => socketWorkers.has(id)))
        .map((t) => t.id),
    );
    this.mirror.sync(this.peers, localTypes);
  }

  private status(): unknown {
    return statusOf({
      engineId: this.engineId,
      cluster: this.config.name,
      nats: this.config.nats,
      connected: this.connected,
      outageSinceMs: this.outageSinceMs,
      peers: this.peers.list(),
      inFlight: this.remote?.inFlight ?? 0,
      heartbeatTimeoutMs: this.config.heartbeat_timeout_ms,
    });
  }
}

export function createClusterModule(config: ClusterConfig): ClusterModule {
  return new ClusterModule(config);
}
