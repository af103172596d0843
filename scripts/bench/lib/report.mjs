// The table of targets docs/performance.md gives for a group of full runs ("Latest full runs"), made from the JSON
// files `npm run bench` writes: one column per run with each target's row as the docs print it (met in bold, the
// figures behind it on the rows below), and one line per run for the host and the minutes it ran in.
import { meetsTarget, ratioWithDigits } from './targets.mjs';

/** An error that names the run it is about (its column's label). */
function runError(run, what) {
  return new Error(`${run.label}: ${what}`);
}

function findRow(run, area, pattern, peer) {
  const row = run.result.rows?.find(
    (r) => r.area === area && pattern.test(r.name) && (peer === undefined || (r.peer ?? '').startsWith(peer)),
  );
  if (!row) {
    const against = peer === undefined ? '' : ` against ${peer}`;
    throw runError(run, `no row of the ${area} script matching ${pattern}${against} (did the script run?)`);
  }
  return row;
}

/** The first line of a script's log matching `pattern`, as its match; JSON written before the log was kept has none. */
function logMatch(run, area, pattern) {
  const entry = run.result.areas?.find((a) => a.area === area);
  if (!entry?.log) {
    throw runError(run, `the ${area} script's log is not in this file (written before the bench kept its log lines)`);
  }
  for (const line of entry.log) {
    const match = pattern.exec(line);
    if (match) return match;
  }
  throw runError(run, `no line of the ${area} script's log matching ${pattern}`);
}

const int = (n) => Math.round(Number(n)).toLocaleString('en-US');
const one = (n) => Number(n).toFixed(1);
const bold = (text, met) => (met ? `**${text}**` : text);

/** A row's ratio with two decimals, or the digits that decide it (`ratioWithDigits`). */
export function ratioText(row) {
  const ratio = Number(row.value) / Number(row.floor);
  // a row's verdict is on its ratio only when it has one: a report of a bare value and floor gets it computed
  return ratioWithDigits({ ...row, ratio: row.ratio ?? Number(ratio.toFixed(2)) }, 2);
}

const met = (row) => row.met ?? meetsTarget(row);
const judged = (row) => bold(ratioText(row), met(row));
/** A judged ratio with the two rates it is made of: `**2.29** (13,574 / 5,918)`. */
const judgedWithRates = (row) => `${judged(row)} (${int(row.value)} / ${int(row.floor)})`;

/** The state rows of one store: `set / get`, both in bold when both met. */
function stateCell(run, store) {
  const set = findRow(run, 'state', new RegExp(`state::set via .*${store}.*vs an echo`));
  const get = findRow(run, 'state', new RegExp(`state::get via .*${store}.*vs an echo`));
  if (met(set) && met(get)) return `**${ratioText(set)} / ${ratioText(get)}**`;
  return `${judged(set)} / ${judged(get)}`;
}

/** Each row of the targets table: its title and how a run's cell is made. */
export const REPORT_ROWS = [
  {
    title: 'invoke 100 B @256, our SDK both ends, ≥ 1.5× Moleculer/NATS',
    cell: (run) => judged(findRow(run, 'invoke-peers', /@256, our SDK both ends$/)),
  },
  {
    title: "… calls/s, ours / Moleculer's",
    cell: (run) => {
      const row = findRow(run, 'invoke-peers', /@256, our SDK both ends$/);
      return `${int(row.value)} / ${int(row.floor)}`;
    },
  },
  {
    title: "… CPU µs per call, ours / Moleculer's path with the NATS server (≤ 0.67×)",
    cell: (run) => {
      const row = findRow(run, 'invoke-peers', /CPU per call, our SDK both ends \+ engine$/);
      return bold(`${one(row.value)} / ${one(row.floor)}`, met(row));
    },
  },
  {
    title: 'invoke @256, iii-sdk both ends, ≥ 1.0× Moleculer/NATS',
    cell: (run) => judged(findRow(run, 'invoke-peers', /@256, iii-sdk both ends$/)),
  },
  {
    title: "… CPU µs per call: engine, iii-sdk executor, iii-sdk caller (the path against Moleculer's, ≤ 1.0×)",
    cell: (run) => {
      const row = findRow(run, 'invoke-peers', /CPU per call, iii-sdk both ends \+ engine$/);
      const [, engine, executor, caller] = logMatch(
        run,
        'invoke-peers',
        /best of \d+ iii: .*? CPU\/call \(user\): engine ([\d.]+) \([\d.]+\), executor ([\d.]+) \([\d.]+\), caller ([\d.]+)/,
      );
      return `${one(engine)}, ${one(executor)}, ${one(caller)} (${ratioText(row)}×)`;
    },
  },
  {
    title: 'sequential p50 in the steady state, our SDK, ≤ 1.0× a JSON-reserialising ws relay',
    cell: (run) => judged(findRow(run, 'invoke-peers', /sequential p50 \(steady state\), our SDK/)),
  },
  {
    title: "… µs, ours / the relay's",
    cell: (run) => {
      const row = findRow(run, 'invoke-peers', /sequential p50 \(steady state\), our SDK/);
      return `${one(row.value)} / ${one(row.floor)}`;
    },
  },
  {
    title: 'HTTP, 100 connections, ≥ 0.5× bare node `http`',
    cell: (run) => judged(findRow(run, 'http', /^http req\/s/, 'bare')),
  },
  {
    title: "… req/s, ours / the bare server's",
    cell: (run) => {
      const row = findRow(run, 'http', /^http req\/s/, 'bare');
      return `${int(row.value)} / ${int(row.floor)}`;
    },
  },
  {
    title: "… CPU µs per request, ours (svc-http, engine, worker) / the bare server's",
    cell: (run) => {
      const row = findRow(run, 'http', /CPU per request, svc-http \+ engine \+ worker$/);
      const [, http, engine, worker] = logMatch(
        run,
        'http',
        /CPU per request \(µs, user \+ system\): svc-http (\d+), engine (\d+), worker (\d+)/,
      );
      return `${one(row.value)} (${http}, ${engine}, ${worker}) / ${one(row.floor)}`;
    },
  },
  {
    title: '… ≥ 2.5× moleculer-web',
    cell: (run) => {
      const row = findRow(run, 'http', /^http req\/s/, 'moleculer');
      return `${judged(row)} (${int(row.floor)} req/s)`;
    },
  },
  {
    title: "… CPU µs per request, ours / moleculer-web's path",
    cell: (run) => {
      const row = findRow(run, 'http', /vs moleculer-web/);
      return `${one(row.value)} / ${one(row.floor)}`;
    },
  },
  {
    title: "HTTP p99 ≤ 3× the bare server's",
    cell: (run) => {
      const row = findRow(run, 'http', /p99 latency/);
      return `${judged(row)} (${row.value} / ${row.floor} ms)`;
    },
  },
  {
    title: 'queue end to end, ≥ 1.5× BullMQ (in-memory)',
    cell: (run) => {
      const row = findRow(run, 'queue', /end to end .*in_memory/);
      return judgedWithRates(row);
    },
  },
  {
    title: '… ≥ 1.0× (file, fsync before ack)',
    cell: (run) => {
      const row = findRow(run, 'queue', /end to end .*file_based/);
      return `${judged(row)} (${int(row.value)} jobs/s)`;
    },
  },
  {
    title: '`state::set` / `get` vs an echo call, in-memory store, ≥ 0.7×',
    cell: (run) => stateCell(run, 'in_memory'),
  },
  { title: 'the same, file store (fsync before ack)', cell: (run) => stateCell(run, 'file_based') },
  { title: 'the same, Redis', cell: (run) => stateCell(run, 'Redis') },
  {
    title: 'publish → deliver vs NATS core, 1 subscriber, ≥ 1.0×',
    cell: (run) => {
      const row = findRow(run, 'events', /throughput, 1 subscriber$/, 'NATS');
      return judgedWithRates(row);
    },
  },
  {
    title: '… 10 subscribers',
    cell: (run) => {
      const row = findRow(run, 'events', /throughput, 10 subscribers$/, 'NATS');
      return judgedWithRates(row);
    },
  },
  {
    title: "… CPU µs per delivered message with 10 subscribers, ours / NATS's path",
    cell: (run) => {
      const row = findRow(run, 'events', /CPU per delivered message, all processes, 10 subscribers/);
      return `${one(row.value)} / ${one(row.floor)}`;
    },
  },
  {
    title: 'engine start to ready < 300 ms',
    cell: (run) => {
      const row = findRow(run, 'startup', /engine alone$/);
      return bold(`${int(row.value)} ms`, met(row));
    },
  },
  {
    title: '… without the code cache (the first start after a rebundling build)',
    cell: (run) => {
      const row = findRow(run, 'startup', /without the code cache/);
      return `${int(String(row.value).split(';')[0])} ms`;
    },
  },
  {
    title: 'full default stack < 1.5 s',
    cell: (run) => {
      const row = findRow(run, 'startup', /full default stack/);
      return bold(`${int(row.value)} ms`, met(row));
    },
  },
  {
    title: 'stream fan-out, 1,000 real clients, p99 < 50 ms, 0 missing',
    cell: (run) => {
      const p99 = findRow(run, 'stream-client', /latency p99/);
      const missing = findRow(run, 'stream-client', /missing updates/);
      return bold(`${Number(p99.value).toFixed(2)} ms, ${missing.value}`, met(p99) && met(missing));
    },
  },
  {
    title: "… svc-stream CPU per delivered update (the plain `ws` server's)",
    cell: (run) => {
      const row = findRow(run, 'stream-client', /svc-stream CPU per delivered update/);
      return `${Number(row.value).toFixed(2)} µs (${Number(row.floor).toFixed(2)})`;
    },
  },
  {
    title: "… the client processes' CPU, in cores",
    cell: (run) => {
      const [, ms, seconds] = logMatch(
        run,
        'stream-client',
        /^svc-stream: \d+ updates .*client processes CPU (\d+) ms over ([\d.]+) s/,
      );
      return (Number(ms) / 1000 / Number(seconds)).toFixed(2);
    },
  },
  {
    title: 'engine RSS per idle connection ≤ 16 KiB',
    cell: (run) => {
      const row = findRow(run, 'memory', /per idle worker connection/);
      return bold(Number(row.value).toFixed(2), met(row));
    },
  },
  {
    title: '… per function ≤ 0.5 KiB',
    cell: (run) => {
      const row = findRow(run, 'memory', /per registered function/);
      return bold(Number(row.value).toFixed(2), met(row));
    },
  },
  {
    title: 'tracing on / off at 256 outstanding ≥ 0.85',
    cell: (run) => judged(findRow(run, 'observability', /tracing on/)),
  },
];

const hhmm = (date) => date.toISOString().slice(11, 16);

/** A run's line of the hosts table: its minutes, load, system call, `node -e 0`, steal and targets met. */
function runLine(run) {
  const { result } = run;
  const areas = result.areas ?? [];
  const seconds = areas.reduce((sum, a) => sum + a.seconds, 0);
  const end = new Date(result.at);
  const start = new Date(end.getTime() - seconds * 1000);
  const timed = areas.filter((a) => a.cpu);
  const timedSeconds = timed.reduce((sum, a) => sum + a.seconds, 0);
  const steal = timedSeconds > 0 ? timed.reduce((sum, a) => sum + a.seconds * a.cpu.steal, 0) / timedSeconds : 0;
  const judgedRows = result.rows.filter((r) => r.met !== undefined);
  const metCount = judgedRows.filter((r) => r.met).length;
  const node = findRow(run, 'startup', /node process start/);
  const load = result.machine?.loadavg?.[0];
  return [
    run.label,
    `${hhmm(start)}–${hhmm(end)}`,
    load === undefined ? '' : load.toFixed(1),
    `${int(result.machine?.systemCallNs)} ns`,
    `${int(node.value)} ms`,
    timed.length > 0 ? `${Math.round(steal * 100)}%` : '',
    `${metCount} of ${judgedRows.length}`,
  ];
}

/**
 * Both tables for runs `[{ label, result }]` (`result`: the parsed JSON of one `npm run bench`), as markdown: the
 * targets with one column per run, then one line per run for its host. A row a run lacks throws, naming the run.
 */
export function reportTables(runs) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const rule = (count) => `|${'---|'.repeat(count)}`;
  const out = [line(['target', ...runs.map((r) => r.label)]), rule(runs.length + 1)];
  for (const { title, cell } of REPORT_ROWS) out.push(line([title, ...runs.map(cell)]));
  out.push('');
  const heads = ['run', 'time (UTC)', 'load at end', 'system call', '`node -e 0`', 'stolen', 'targets met'];
  out.push(line(heads), rule(heads.length));
  for (const run of runs) out.push(line(runLine(run)));
  return `${out.join('\n')}\n`;
}
