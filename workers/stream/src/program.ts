/**
 * svc-stream: `stream::*` functions, the `stream`, `stream:join` and `stream:leave` trigger types, and the client
 * WebSocket server (docs/protocol.md §6). Spawned by the engine, or started by hand with `SVC_URL` and
 * `SVC_MODULE_CONFIG` / `--config`.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { createAuthenticator } from './auth.js';
import { createAdapter, serverOptions } from './adapters/index.js';
import { readStreamConfig } from './config.js';
import { registerStreamFunctions } from './functions.js';
import { StreamClientServer } from './server/client-server.js';
import { StreamTriggers } from './triggers.js';
import { CustomStreams } from './custom-streams.js';
import { StreamStore } from './store.js';

const config = readStreamConfig();

void runCapabilityWorker({
  name: 'svc-stream',
  async start(client, logger) {
    const adapter = await createAdapter(config.adapter, logger);
    await adapter.start();
    const triggers = new StreamTriggers(client, logger, config.join_timeout_ms);
    triggers.register();
    const custom = new CustomStreams(client, logger);
    await custom.start();
    const store = new StreamStore(adapter, custom);
    registerStreamFunctions(client, store, adapter, (message) => triggers.fireChange(message));
    const authFunction = config.auth_function;
    const server = new StreamClientServer(
      serverOptions(config),
      adapter,
      {
        ...(authFunction
          ? { authenticate: createAuthenticator(client, authFunction, config.auth_timeout_ms, logger) }
          : {}),
        authorizeJoin: (event) => triggers.authorizeJoin(event),
        notifyLeave: (event) => triggers.notifyLeave(event),
        snapshot: (request) => store.snapshot(request),
      },
      logger,
    );
    const port = await server.start().catch(async (error: unknown) => {
      await adapter.close();
      throw error;
    });
    logger.info({ port, host: config.host, adapter: adapter.name }, 'stream client socket listening');
    return {
      async close() {
        await server.close();
        await adapter.close();
      },
    };
  },
});
