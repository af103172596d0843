#!/usr/bin/env node
/**
 * svc-cron: the `cron` trigger type as a worker process. Spawned by the engine (config in SVC_MODULE_CONFIG) or
 * started by hand (`SVC_URL=ws://… node workers/cron/dist/main.js --config cron.yaml`); both behave the same.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { readModuleConfig } from '@svc/config';
import { cronConfigSchema } from './config.js';
import { startCronWorker } from './cron-worker.js';

const config = readModuleConfig('svc-cron', cronConfigSchema);

void runCapabilityWorker({
  name: 'svc-cron',
  start: (client, logger) => startCronWorker(client, logger, config),
});
