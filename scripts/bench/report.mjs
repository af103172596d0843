// `node scripts/bench/report.mjs [LABEL=]bench-results/<file>.json ...`: the table of targets docs/performance.md
// gives for a group of full runs, one column per file in the order given (`FL=bench-results/….json` labels its column
// FL; without a label, a column is named by the minute its run ended), printed as markdown: each target's row as the
// docs print it, met in bold, then one line per run for its minutes, load, system call, `node -e 0`, steal and
// targets met. Not a bench script (it exports no `run`): `npm run bench` never runs it.
import { readFileSync } from 'node:fs';
import { reportTables } from './lib/report.mjs';

const args = process.argv.slice(2);
if (args.length === 0 || args.includes('--help')) {
  console.error('usage: node scripts/bench/report.mjs [LABEL=]bench-results/<file>.json ...');
  process.exit(args.length === 0 ? 2 : 0);
}
try {
  const runs = args.map((arg) => {
    const at = arg.indexOf('=');
    const file = at > 0 ? arg.slice(at + 1) : arg;
    let result;
    try {
      result = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${file}: not a bench result (${err.message})`);
    }
    if (!Array.isArray(result.rows)) throw new Error(`${file}: not a bench result (no rows)`);
    const label = at > 0 ? arg.slice(0, at) : (result.at?.slice(11, 16) ?? file);
    return { label, result };
  });
  process.stdout.write(reportTables(runs));
} catch (err) {
  console.error(`report: ${err.message}`);
  process.exit(1);
}
