import { MAX_VALUE_DEPTH } from '@svc/sdk';

/**
 * Length limits of stream names, group ids and item ids, the same as svc-state's scope and key limit: a name is
 * part of every storage key and every frame that carries it, so an unbounded one would let one caller make every
 * subscriber's frames, and the store's keys, as large as it likes.
 */
export const MAX_NAME_BYTES = 1024;

/** True when `value` fits the limit (counted in UTF-8 bytes, as it is stored and sent). */
export function nameFits(value: string): boolean {
  return value.length <= MAX_NAME_BYTES / 4 || Buffer.byteLength(value) <= MAX_NAME_BYTES;
}

export function tooLongMessage(field: string): string {
  return `${field} is longer than ${MAX_NAME_BYTES} bytes; use a shorter ${field}`;
}

/** An item's or an event's data nested deeper than MAX_VALUE_DEPTH (it is written as JSON to the store and to every subscriber). */
export const TOO_DEEP_MESSAGE = `is nested deeper than ${MAX_VALUE_DEPTH} levels`;
