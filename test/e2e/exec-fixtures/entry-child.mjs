// A process for the exec entry tests: `node entry-child.mjs <record-file>`. Appends one JSON line per start
// (pid, cwd, APP_MODE, RETRIES, SVC_MODULE_CONFIG), then runs until SIGTERM.
import { appendFileSync } from 'node:fs';
import { clearInterval, setInterval } from 'node:timers';

const [file] = process.argv.slice(2);
const keepAlive = setInterval(() => undefined, 1000);
process.on('SIGTERM', () => {
  clearInterval(keepAlive);
  process.exit(0);
});
const { APP_MODE, RETRIES, SVC_MODULE_CONFIG } = process.env;
const line = {
  event: 'start',
  pid: process.pid,
  t: Date.now(),
  cwd: process.cwd(),
  APP_MODE,
  RETRIES,
  SVC_MODULE_CONFIG,
};
appendFileSync(file, `${JSON.stringify(line)}\n`);
console.log(`entry child ${process.pid} started`);
