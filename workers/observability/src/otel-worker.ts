/** svc-otel's parts, started in order and closed in reverse. */
import type { Logger } from 'pino';
import type { ObservabilityConfig } from './config.js';
import type { SvcClient } from '@svc/sdk';
import { Alerts } from './alerts.js';
import { Collector } from './collector.js';
import { registerOtelFunctions } from './functions.js';
import { LogTriggers } from './log-trigger.js';
import { TraceTriggers } from './trace-trigger.js';

export interface RunningOtelWorker {
  collector: Collector;
  close(): Promise<void>;
}

export async function startOtelWorker(
  client: SvcClient,
  logger: Logger,
  config: ObservabilityConfig,
): Promise<RunningOtelWorker> {
  const collector = new Collector(config, logger);
  const alerts = new Alerts(config.alerts, collector.metrics, client, logger);
  const triggers = new LogTriggers(client, logger);
  const traceTriggers = new TraceTriggers(client, logger);
  collector.logTriggers = triggers;
  collector.traceTriggers = traceTriggers;
  registerOtelFunctions(client, { collector, alerts, config });
  triggers.register();
  traceTriggers.register();
  collector.start();
  alerts.start();
  return {
    collector,
    close: async () => {
      alerts.close();
      traceTriggers.close();
      await collector.close();
    },
  };
}
