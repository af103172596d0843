// An iii-sdk@0.22.1 worker for the svc-cron tests: binds `<FN>` to a `cron` trigger with EXPRESSION and prints
// "run <json payload>" for every run. Env: SVC_URL, FN, EXPRESSION.
import { registerWorker } from 'iii-sdk';

const iii = registerWorker(process.env.SVC_URL, { otel: { enabled: false }, workerName: 'iii-cron-worker' });
iii.registerFunction(process.env.FN, async (payload) => {
  process.stdout.write(`run ${JSON.stringify(payload)}\n`);
  return null;
});
iii.registerTrigger({ type: 'cron', function_id: process.env.FN, config: { expression: process.env.EXPRESSION } });

process.on('SIGTERM', async () => {
  await iii.shutdown();
  process.exit(0);
});
