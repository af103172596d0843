// `npm run bench`: runs every scripts/bench/*.mjs (except this file) that exports `run({ log })`, prints one table of
// rows `{ name, value, unit, floor?, peer?, ratio?, target? }` (`floor` is the value of what the row is measured
// against: the floor, or the peer system named by `peer`) and writes them as JSON to bench-results/, with each
// script's log lines (`areas[].log`, from which `node scripts/bench/report.mjs` makes the docs' table of targets).
// `node scripts/bench/run.mjs invoke http` runs only the scripts whose file name contains one of the words. A script
// that exports `namedOnly = true` (one that takes minutes and has no target, such as instructions.mjs) runs only when
// a word names it.
// Helper scripts beside them (child processes, servers) are recognised by not exporting `run` and never imported.
// Each area's closing line gives how the machine's CPUs were spent while it ran (busy, idle, stolen by the host),
// and a missed row whose area ran with a share of steal worth naming says so. The first line names the host: its
// CPUs, what a system call costs there (lib/host-syscall.mjs) and, on a VM whose idle vCPUs halt under the haltpoll
// driver, how long they poll first (each wake-up of a halted vCPU goes through the hypervisor, which sets the
// sequential rows), read once before the first script.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cpuShares, describeShares, readCpuTimes } from './lib/host-cpu.mjs';
import { describeSystemCall, systemCallNs } from './lib/host-syscall.mjs';
import { describeMiss, meetsTarget, shownRatio } from './lib/targets.mjs';
import { readIdleHalt } from '../../cli/dist/start/host-notes.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '../..');
const filters = process.argv.slice(2);

function pad(text, width, right = false) {
  const s = String(text ?? '');
  return right ? s.padStart(width) : s.padEnd(width);
}

function printTable(rows) {
  const headers = ['area', 'name', 'value', 'unit', 'against', 'its value', 'ratio', 'target', 'met'];
  const against = (r) => r.peer ?? (r.floor === undefined ? '' : 'floor');
  const cells = rows.map((r) => [
    r.area,
    r.name,
    r.value,
    r.unit,
    against(r),
    r.floor ?? '',
    shownRatio(r),
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
  ]);
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((c) => String(c[i]).length)));
  const numeric = [false, false, true, false, false, true, true, false, false];
  const line = (values) => values.map((v, i) => pad(v, widths[i], numeric[i])).join('  ');
  console.log(line(headers));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

async function main() {
  const scripts = readdirSync(HERE)
    .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs')
    .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
    // helper scripts (child processes, servers) are never imported: only files that export `run`
    .filter((f) =>
      /export\s+(async\s+)?function\s+run\b|export\s*\{[^}]*\brun\b/.test(readFileSync(join(HERE, f), 'utf8')),
    )
    .sort();
  const machine = {
    cpus: cpus().length,
    model: cpus()[0]?.model,
    node: process.version,
    systemCallNs: Math.round(systemCallNs()),
    idleHalt: readIdleHalt() ?? null,
  };
  const halt = machine.idleHalt
    ? `; idle vCPUs poll ${machine.idleHalt.pollNs} ns before they halt (cpuidle haltpoll)`
    : '';
  console.log(
    `host: ${machine.cpus} × ${machine.model}, Node.js ${machine.node}; ${describeSystemCall(machine.systemCallNs)}${halt}`,
  );
  const rows = [];
  const failures = [];
  /** Per area: its seconds and how the machine's CPUs were spent meanwhile (undefined off Linux). */
  const areas = [];
  for (const file of scripts) {
    const area = basename(file, '.mjs');
    const mod = await import(pathToFileURL(join(HERE, file)).href);
    if (typeof mod.run !== 'function') continue;
    if (mod.namedOnly === true && filters.length === 0) {
      console.log(`== ${area}: not run by default (\`node scripts/bench/run.mjs ${area}\` runs it)`);
      continue;
    }
    const started = Date.now();
    const cpuBefore = readCpuTimes();
    console.log(`== ${area}`);
    const log = [];
    try {
      const result = await mod.run({
        log: (msg) => {
          log.push(String(msg));
          console.log(`   ${msg}`);
        },
      });
      for (const row of result ?? []) rows.push({ area, ...row });
    } catch (err) {
      failures.push({ area, error: String(err?.stack ?? err) });
      console.error(`   ${area} failed: ${err?.message ?? err}`);
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu = cpuShares(cpuBefore, readCpuTimes());
    areas.push({ area, seconds, cpu, log });
    console.log(`   done in ${seconds.toFixed(1)} s${cpu ? `; the machine's CPUs: ${describeShares(cpu)}` : ''}`);
  }
  for (const row of rows) {
    const met = meetsTarget(row);
    if (met !== undefined) row.met = met;
  }
  console.log('');
  printTable(rows);
  const judged = rows.filter((r) => r.met !== undefined);
  if (judged.length > 0) {
    const missed = judged.filter((r) => !r.met);
    console.log(`\ntargets met: ${judged.length - missed.length} of ${judged.length}`);
    for (const r of missed) {
      console.log(`  missed: ${describeMiss(r, areas.find((a) => a.area === r.area)?.cpu?.steal)}`);
    }
  }
  const outDir = join(ROOT, 'bench-results');
  mkdirSync(outDir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const file = join(outDir, `bench-${stamp}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      { at: new Date().toISOString(), machine: { ...machine, loadavg: loadavg() }, areas, rows, failures },
      null,
      2,
    ),
  );
  console.log(
    `\nwritten to ${file} (load average at the end: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  if (failures.length > 0) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
