import type { Readable } from 'node:stream';

/**
 * The lines a child process writes to `stream`, one per call of the function returned, in order: a test's
 * conversation with a small program that answers each line of its stdin with a line of its own.
 */
export function lineReader(stream: Readable): () => Promise<string> {
  const lines: string[] = [];
  let waiting: (() => void) | undefined;
  stream.on('data', (d: Buffer) => {
    lines.push(...d.toString().trim().split('\n'));
    waiting?.();
  });
  return () =>
    lines.length > 0
      ? Promise.resolve(lines.shift()!)
      : new Promise((resolve) => {
          waiting = () => {
            waiting = undefined;
            resolve(lines.shift()!);
          };
        });
}
