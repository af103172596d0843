export * from './pubsub.js';
export * from './http-functions.js';
export * from './exec.js';
export * from './bridge-client.js';
export * from './telemetry.js';
