import { InvocationError } from '@svc/sdk/core';
import { EngineErrorCode } from '../../error-codes.js';

/**
 * The JSON text of what is published on `topic`. A value `JSON.stringify` cannot write (arrays nested thousands of
 * levels deep overflow its recursion) is the publisher's error, `serialization_error`, never a delivery dropped later.
 */
export function dataText(topic: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new InvocationError({
      code: EngineErrorCode.SerializationError,
      message: `publish to '${topic}': data cannot be written as JSON: ${(err as Error).message}`,
    });
  }
}
