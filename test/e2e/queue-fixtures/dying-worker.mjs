// A worker whose handler kills its own process (SIGKILL) on a share of attempts while the file FAULT_FILE exists (the
// test deletes it to heal the fault). Completed jobs are appended to COMPLETIONS_FILE, so the log survives the process.
import { appendFileSync, existsSync } from 'node:fs';
import pino from 'pino';
import { registerWorker } from '../../../sdk/dist/index.js';

const dieRate = Number(process.env.DIE_RATE ?? 0.2);
const client = registerWorker(process.env.SVC_URL, { workerName: 'dying-worker', logger: pino({ level: 'silent' }) });
client.registerFunction('qdie::job', async (payload) => {
  await new Promise((r) => setTimeout(r, 5));
  if (existsSync(process.env.FAULT_FILE) && Math.random() < dieRate) process.kill(process.pid, 'SIGKILL');
  appendFileSync(process.env.COMPLETIONS_FILE, `${payload.seq}\n`);
  return null;
});
await client.ready();
console.log('dying-worker ready');
