/* global setInterval, clearInterval */
// A subscriber worker process for the pubsub tests. Env: SVC_URL, SDK ("svc" | "iii"), NAME, TOPICS (comma-separated;
// one subscribe binding per entry, so a topic listed twice has two bindings). Each binding has its own function
// `<NAME>::on-<index>`. Prints "ready" once registered and one line "recv <function id> <json payload>" per delivery.
import { registerWorker as svcRegister } from '@svc/sdk';
import { registerWorker as iiiRegister } from 'iii-sdk';
import pino from 'pino';

const name = process.env.NAME ?? 'sub';
const topics = (process.env.TOPICS ?? '').split(',').filter(Boolean);
const client =
  process.env.SDK === 'iii'
    ? iiiRegister(process.env.SVC_URL, { otel: { enabled: false }, workerName: name })
    : svcRegister(process.env.SVC_URL, { workerName: name, logger: pino({ level: 'warn' }) });

topics.forEach((topic, index) => {
  const id = `${name}::on-${index}`;
  client.registerFunction(id, async (payload) => {
    process.stdout.write(`recv ${id} ${JSON.stringify(payload)}\n`);
    return null;
  });
  client.registerTrigger({ type: 'subscribe', function_id: id, config: { topic } });
});

const timer = setInterval(() => {
  if (client.workerId === undefined) return;
  clearInterval(timer);
  setTimeout(() => process.stdout.write('ready\n'), 150);
}, 20);

process.on('SIGTERM', async () => {
  await client.shutdown();
  process.exit(0);
});
