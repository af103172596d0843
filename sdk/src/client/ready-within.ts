/**
 * A client that must connect within a deadline (a capability worker's bridge to another engine, whose absence
 * fails start-up): waits for `ready()`; on the deadline, or if it fails, shuts the client down and throws
 * (`unreachable()` on the deadline), so no reconnecting client is left behind.
 */
import type { SvcClient } from '../types.js';

export async function readyWithin(client: SvcClient, timeoutMs: number, unreachable: () => Error): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(unreachable()), timeoutMs);
  });
  try {
    await Promise.race([client.ready(), deadline]);
  } catch (err) {
    await client.shutdown();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
