/** A raw protocol client for engine tests: sends any bytes, records every frame, waits for matching frames. */
import WebSocket from 'ws';

export interface RawFrame {
  type: string;
  [key: string]: unknown;
}

export interface RawClient {
  ws: WebSocket;
  frames: RawFrame[];
  workerId: string;
  send(frame: object | string | Buffer): void;
  next(pred: (f: RawFrame) => boolean, timeoutMs?: number): Promise<RawFrame>;
  closed: Promise<number>;
  close(): Promise<void>;
}

export async function openRaw(url: string, headers: Record<string, string> = {}): Promise<RawClient> {
  const ws = new WebSocket(url, { headers });
  const frames: RawFrame[] = [];
  const waiters = new Set<() => void>();
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  ws.on('error', () => undefined);
  ws.on('message', (data) => {
    try {
      frames.push(JSON.parse((data as Buffer).toString()) as RawFrame);
    } catch {
      frames.push({ type: '<undecodable>' });
    }
    for (const w of waiters) w();
  });
  const next = (pred: (f: RawFrame) => boolean, timeoutMs = 3000): Promise<RawFrame> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = frames.find(pred);
        if (found === undefined) return false;
        clearTimeout(timer);
        waiters.delete(onFrame);
        resolve(found);
        return true;
      };
      const onFrame = (): void => void check();
      const timer = setTimeout(() => {
        waiters.delete(onFrame);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames).slice(0, 500)}`));
      }, timeoutMs);
      if (!check()) waiters.add(onFrame);
    });
  const registered = await next((f) => f.type === 'workerregistered', 5000);
  return {
    ws,
    frames,
    workerId: registered.worker_id as string,
    send: (frame) => ws.send(typeof frame === 'object' && !Buffer.isBuffer(frame) ? JSON.stringify(frame) : frame),
    next,
    closed,
    close: async () => {
      ws.close();
      await closed;
    },
  };
}
