/**
 * svc-http: the worker process that serves HTTP triggers. Spawned by the engine (SVC_URL, SVC_MODULE_CONFIG,
 * SVC_SUPERVISED=1) or started by hand with SVC_URL; the same code either way.
 */
import { runCapabilityWorker } from '@svc/sdk';
import { startHttpApp } from './app.js';
import { readHttpConfig } from './config.js';

const config = readHttpConfig();

void runCapabilityWorker({
  name: 'svc-http',
  start: (client, logger) => startHttpApp(client, config, logger),
  // Shutdown drains in-flight requests, which may take up to default_timeout.
  closeTimeoutMs: config.default_timeout + 1000,
});
