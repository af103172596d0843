export * from './protocol.js';
export * from './codec.js';
export * from './types.js';
export type { ClientTransport, TransportEvents } from './connection/transport.js';
