// A process for the exec supervisor tests: `node child.mjs <record-file> <mode> [args...]`.
// Appends one JSON line per start (pid, argv, the SVC_* env it was given) to <record-file>, then:
//   crash        exits 1 at once
//   stay         runs until SIGTERM, records it, exits 0
//   ignore-term  ignores SIGTERM (the supervisor has to SIGKILL it)
import { appendFileSync } from 'node:fs';
import { clearInterval, setInterval } from 'node:timers';

const [file, mode, ...rest] = process.argv.slice(2);
const record = (event) => appendFileSync(file, `${JSON.stringify({ event, pid: process.pid, t: Date.now() })}\n`);
// The handler is in place before the start is recorded: a test that signals right after seeing the start is
// never racing the default action.
const keepAlive = mode === 'crash' ? undefined : setInterval(() => undefined, 1000);
process.on('SIGTERM', () => {
  record('sigterm');
  if (mode === 'ignore-term') return;
  clearInterval(keepAlive);
  process.exit(0);
});
appendFileSync(
  file,
  `${JSON.stringify({
    event: 'start',
    pid: process.pid,
    t: Date.now(),
    args: rest,
    env: {
      SVC_URL: process.env.SVC_URL,
      SVC_SUPERVISED: process.env.SVC_SUPERVISED,
      SVC_MODULE_CONFIG: process.env.SVC_MODULE_CONFIG,
    },
  })}\n`,
);
console.log(`child ${process.pid} started in mode ${mode}`);
if (mode === 'crash') process.exit(1);
