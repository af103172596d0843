/** A `ModuleContext` over a bare core, for testing one module's use of the hooks without sockets. */
import pino from 'pino';
import { createClient } from '@svc/sdk';
import { EngineCore } from '../src/core/engine-core.js';
import type { Worker } from '../src/core/worker.js';
import { createInternals, createModuleHooks } from '../src/internals.js';
import { PlainEndpoints } from '../src/transport/plain-endpoints.js';
import { SocketRoutes } from '../src/transport/socket-routes.js';
import type { ModuleContext } from '../src/modules/module.js';
import { InProcessTransport } from '../src/transport/in-process.js';
import { MemoryConnection } from './memory-connection.js';

export function moduleTestBed(): {
  core: EngineCore;
  ctx: ModuleContext;
  connect: (features?: string[]) => { conn: MemoryConnection; worker: Worker };
} {
  const logger = pino({ level: 'silent' });
  const core = new EngineCore({ logger });
  const ctx: ModuleContext = {
    connect: async (workerName) => {
      const client = createClient(new InProcessTransport(core, workerName, logger), { workerName, logger });
      await client.ready();
      return client;
    },
    logger,
    engineUrl: 'ws://127.0.0.1:0',
    hooks: createModuleHooks(core),
    engine: createInternals(core, Date.now(), new SocketRoutes(), new PlainEndpoints()),
  };
  const connect = (features: string[] = []) => {
    const conn = new MemoryConnection(features);
    return { conn, worker: core.attach(conn) };
  };
  return { core, ctx, connect };
}
