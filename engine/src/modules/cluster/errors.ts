/** The error codes the cluster module answers calls with (docs/errors.md, docs/cluster.md). */
import type { ErrorBody } from '@svc/sdk';
import { ClientErrorCode, ErrorCode, mebibytes } from '@svc/sdk/core';

export const ClusterErrorCode = Object.freeze({
  /** The engine executing the call left the cluster (died, or stopped heartbeating) before answering. */
  EngineLost: 'cluster_engine_lost',
  /** This engine lost its NATS connection while the call was on another engine, or could not send it. */
  Unavailable: 'cluster_unavailable',
} as const);

export function engineLost(functionId: string, engineId: string, why: string): ErrorBody {
  return {
    code: ClusterErrorCode.EngineLost,
    message: `engine ${engineId} executing ${functionId} left the cluster (${why}); the call's outcome is unknown`,
  };
}

export function unavailable(functionId: string, why: string): ErrorBody {
  return {
    code: ClusterErrorCode.Unavailable,
    message: `${functionId} runs on another engine and the cluster is unreachable (${why}); retry shortly`,
  };
}

/** NATS carries at most the server's `max_payload` in one message; a larger publish would fail (or never answer). */
function natsLimit(what: string, bytes: number, max: number): string {
  return `${what} is ${mebibytes(bytes)} between engines, and NATS carries at most ${mebibytes(max)} in one message (the server's max_payload)`;
}

export function payloadTooLarge(functionId: string, bytes: number, max: number): ErrorBody {
  return {
    code: ClientErrorCode.PayloadTooLarge,
    message: `${natsLimit(`the call of ${functionId}`, bytes, max)}; nothing was sent. Pass a reference instead (a state key, a data channel), or raise max_payload`,
  };
}

export function resultTooLarge(functionId: string, bytes: number, max: number): ErrorBody {
  return {
    code: ErrorCode.ResultTooLarge,
    message: `${natsLimit(`the result of ${functionId}`, bytes, max)}. Return less, or a reference (a state key, a data channel), or raise max_payload`,
  };
}
