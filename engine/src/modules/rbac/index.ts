export { createListenerGate, needsGate, AUTH_ERROR } from './listener-gate.js';
export type { RbacHost, CallOutcome } from './host.js';
export { FORBIDDEN } from './invoke-check.js';
export * from './policy.js';
export { parseAuthResult } from './auth-result.js';
