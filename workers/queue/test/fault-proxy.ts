/** A TCP proxy that can cut every connection through it at once (a broker restart, a network blip). */
import net from 'node:net';

export class FaultProxy {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  private blocked = false;

  constructor(
    private readonly targetPort: number,
    private readonly targetHost = '127.0.0.1',
  ) {
    this.server = net.createServer((client) => this.accept(client));
  }

  async start(): Promise<number> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** Resets every open connection; with `downMs`, refuses new ones for that long. */
  cut(downMs = 0): void {
    for (const s of this.sockets) s.resetAndDestroy();
    this.sockets.clear();
    if (downMs > 0) {
      this.blocked = true;
      setTimeout(() => (this.blocked = false), downMs).unref();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  private accept(client: net.Socket): void {
    if (this.blocked) return void client.resetAndDestroy();
    const upstream = net.connect(this.targetPort, this.targetHost);
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        this.sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
