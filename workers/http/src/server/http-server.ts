/**
 * The svc-http listener: a node `http` server with the request handler, and its lifecycle.
 *
 * `close()` is idempotent and drains: it stops accepting connections, answers requests that arrive on open
 * keep-alive connections with 503 (connection close), waits for in-flight requests to finish (up to `graceMs`),
 * then destroys whatever is left.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';
import { answerClientError } from './client-error.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import { CorsPolicy, type CorsConfig } from './cors.js';
import type { Invoker } from './dispatch.js';
import type { ChannelPort } from './request-channels.js';
import { createRequestHandler } from './request-handler.js';
import type { RouteTable } from './route-table.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  defaultTimeoutMs: number;
  concurrencyLimit: number;
  maxBodyBytes: number;
  cors: CorsConfig | undefined;
  routes: RouteTable;
  invoker: Invoker;
  /** The request/response data channels; without it payloads carry no channel refs (see request-handler). */
  channels?: ChannelPort;
  logger: Logger;
}

export class HttpServer {
  private readonly server: Server;
  private readonly limiter: ConcurrencyLimiter;
  private draining = false;
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: HttpServerOptions) {
    this.limiter = new ConcurrencyLimiter(opts.concurrencyLimit);
    this.server = createServer(
      // Expired header/request deadlines are found by a periodic sweep; the default (30 s) answers far too late.
      { connectionsCheckingInterval: 1000 },
      createRequestHandler({
        routes: opts.routes,
        limiter: this.limiter,
        cors: new CorsPolicy(opts.cors),
        invoker: opts.invoker,
        logger: opts.logger,
        defaultTimeoutMs: opts.defaultTimeoutMs,
        maxBodyBytes: opts.maxBodyBytes,
        ...(opts.channels ? { channels: opts.channels } : {}),
        isDraining: () => this.draining,
      }),
    );
    // Our own deadline answers first (408/504); these are backstops against sockets that never finish a request.
    this.server.requestTimeout = opts.defaultTimeoutMs + 5_000;
    this.server.headersTimeout = Math.min(60_000, opts.defaultTimeoutMs + 5_000);
    this.server.on('clientError', (err, socket) => answerClientError(err, socket, this.server.headersTimeout));
  }

  get inFlight(): number {
    return this.limiter.inFlight;
  }

  async start(): Promise<AddressInfo> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.server.address() as AddressInfo;
  }

  close(graceMs = this.opts.defaultTimeoutMs): Promise<void> {
    this.closing ??= this.drain(graceMs);
    return this.closing;
  }

  private async drain(graceMs: number): Promise<void> {
    this.draining = true;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.limiter.idle(), grace]);
    clearTimeout(timer);
    this.server.closeAllConnections();
    await closed;
  }
}
