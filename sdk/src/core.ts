/**
 * `@svc/sdk/core`: the wire-level parts of the SDK (protocol types, the frame codec, constants, error codes and
 * errors, trigger actions, trace context, update operations, log forwarding) and a client over a given transport without
 * telemetry. It imports no OpenTelemetry and no `ws` client, so a process that only speaks the protocol (the engine, the `svc` command) does not load
 * them at start-up. Everything here is also exported from `@svc/sdk`.
 */
export * from './protocol.js';
export { ClientErrorCode, UpdateOpErrorCode, updateOpPathCode } from './error-codes.js';
export * from './codec.js';
export type * from './types.js';
export type { ClientTransport, TransportEvents } from './connection/transport.js';
export * from './constants.js';
export { InvocationError, isErrorBody, type InvocationErrorInit } from './errors.js';
export { TriggerAction } from './trigger-action.js';
export { childTraceparent, newTraceparent, parseTraceparent } from './trace-context.js';
export { newUuid, randomBase64url, uuidLead } from './random-ids.js';
export {
  applyUpdateOps,
  parseUpdateOp,
  MAX_MERGE_VALUE_DEPTH,
  MAX_MERGE_VALUE_KEYS,
  MAX_PATH_DEPTH,
  MAX_SEGMENT_BYTES,
  PROTOTYPE_KEYS,
  type JsonObject,
  type JsonValue,
  type ParsedUpdateOp,
  type UpdateOp,
  type UpdateOpError,
  type UpdateOutcome,
} from './update-ops/index.js';
export { createBareClient } from './bare-client.js';
export { forwardRecord, setLogForwarder, type LogForwarder } from './telemetry/log-forward.js';
export { conditionFunctionId } from './client/fire-trigger.js';
export { readyWithin } from './client/ready-within.js';
export { serverTextFrame, TURN_FLUSH_BYTES } from './connection/text-frame.js';
export { FrameWriter } from './connection/frame-writer.js';
export { mebibytes, textOf } from './text.js';
export { MAX_VALUE_DEPTH, nestedDeeperThan } from './json-depth.js';
export { InFlightMap, InFlightSet, IN_FLIGHT_RENEW_AFTER } from './in-flight.js';
export { Deadlines, type DeadlineEntry } from './client/deadlines.js';
export { onStopSignals, REPEATED_SIGNAL_MS, type StopSignalHandlers, type StopSignals } from './stop-signals.js';
export { JsonText } from './json-text.js';
export { jsonField, quoteId } from './wire-frames.js';
export {
  leasedChannelBase,
  leasedChannelId,
  leasedChannelKey,
  leasePrefix,
  isLeasePrefix,
  MAX_LEASED_NUMBER,
  parseLeasedChannelId,
  LEASE_CHANNELS_FUNCTION,
  RETIRE_CHANNELS_FUNCTION,
  type ChannelLease,
  type LeasedChannelId,
  type LeasedChannelKind,
} from './channels/lease.js';
