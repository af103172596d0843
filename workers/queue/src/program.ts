/**
 * svc-queue: queues with retries and dead letters as a worker process. Spawned by the engine (SVC_URL,
 * SVC_MODULE_CONFIG, SVC_SUPERVISED=1) or started by hand with SVC_URL and `--config <file>`.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { createBackend } from './adapters/index.js';
import { readQueueConfig } from './config.js';
import { Consumers } from './consumers.js';
import { registerQueueFunctions } from './functions.js';
import { createJobRunner } from './job-runner.js';
import { registerQueueTriggerTypes, Subscriptions } from './triggers.js';

const config = readQueueConfig();

void runCapabilityWorker({
  name: 'svc-queue',
  closeTimeoutMs: 8000,
  async start(client, logger) {
    const backend = await createBackend(config, logger);
    await backend.start();
    const runner = createJobRunner(client, config.job_timeout_ms, logger);
    const consumers = new Consumers(backend, runner, logger, config.max_queues);
    const subs = new Subscriptions();
    registerQueueFunctions(client, backend, consumers, subs);
    registerQueueTriggerTypes(client, subs, consumers);
    await consumers.start(Object.keys(config.queue_configs), 5000);
    await client.synced(); // registered at the engine before the line below says so
    logger.info({ adapter: backend.name }, 'svc-queue ready');
    return {
      async close() {
        consumers.close();
        await backend.close(5000);
      },
    };
  },
});
