/** The error codes the cluster module answers calls with (docs/errors.md, docs/cluster.md). */
import type { ErrorBody } from '@svc/sdk';

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
