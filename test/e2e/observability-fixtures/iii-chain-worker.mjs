// An iii-sdk@0.22.1 worker in the middle of a traced chain: `obs::iii-step` logs through the iii logger and
// enqueues `obs::job` (TriggerAction.Enqueue) from inside its handler, so the call carries its trace context.
// Telemetry is on (the iii-sdk default): its spans and logs go to the engine's /otel socket. Prints "ready".
/* global setInterval, clearInterval */
import { Logger } from '@iii-dev/helpers/observability';
import { registerWorker, TriggerAction } from 'iii-sdk';

const iii = registerWorker(process.env.SVC_URL, { workerName: 'obs-iii' });
const logger = new Logger();
iii.registerFunction('obs::iii-step', async (data) => {
  logger.info('iii step', { run: data.run });
  await iii.trigger({ function_id: 'obs::job', payload: data, action: TriggerAction.Enqueue({ queue: 'obsq' }) });
  return { enqueued: true };
});
const timer = setInterval(() => {
  if (iii.workerId === undefined) return;
  clearInterval(timer);
  setTimeout(() => console.log('ready'), 100);
}, 20);
process.on('SIGTERM', async () => {
  await iii.shutdown();
  process.exit(0);
});
