/**
 * svc-cron: the `cron` trigger type as a worker process. Spawned by the engine (config in SVC_MODULE_CONFIG) or
 * started by hand (`SVC_URL=ws://… node workers/cron/dist/main.js --config cron.yaml`); both behave the same.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { readCronConfig } from './config.js';
import { startCronWorker } from './cron-worker.js';

const config = readCronConfig();

void runCapabilityWorker({
  name: 'svc-cron',
  start: (client, logger) => startCronWorker(client, logger, config),
});
