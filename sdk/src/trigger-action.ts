/** The `action` of a `trigger()` call. Absent means synchronous: the call resolves with the function's result. */
import type { TriggerActionWire } from './protocol.js';

export const TriggerAction = {
  /** Fire and forget: `trigger()` resolves `undefined` at once and no result comes back. */
  Void(): TriggerActionWire {
    return { type: 'void' };
  },
  /** Hand the call to the queue provider; `trigger()` resolves `{ messageReceiptId }` once it is enqueued. */
  Enqueue(options: { queue: string }): TriggerActionWire {
    return { type: 'enqueue', queue: options.queue };
  },
} as const;
