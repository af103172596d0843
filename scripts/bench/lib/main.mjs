// How a bench script runs when called directly (`node scripts/bench/<name>.mjs`) rather than imported by run.mjs:
// its rows as a table, then exit 0; a failure printed, then exit 1 (a lingering socket or timer keeps no bench
// alive after its table).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether the module at `metaUrl` is the script node was started with. */
export function calledDirectly(metaUrl) {
  return process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(metaUrl);
}

/** When the module at `metaUrl` was called directly: `run(options)`, its rows printed as a table. */
export function runWhenCalledDirectly(metaUrl, run, options) {
  if (!calledDirectly(metaUrl)) return;
  run(options).then(
    (rows) => {
      console.table(rows);
      process.exit(0);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
