// Compares two V8 heap snapshots (`.heapsnapshot`): live objects and their own (shallow) bytes per kind and
// constructor, sorted by growth. `node scripts/bench/heap-diff.mjs <before> <after> [per]` also prints the growth
// divided by `per` (e.g. the number of functions registered between the two snapshots).
import { readFileSync } from 'node:fs';

function summarise(path) {
  const snap = JSON.parse(readFileSync(path, 'utf8'));
  const meta = snap.snapshot.meta;
  const fields = meta.node_fields;
  const types = meta.node_types[0];
  const width = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const byKey = new Map();
  const nodes = snap.nodes;
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]];
    let name = snap.strings[nodes[i + iName]];
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    else if (type === 'code' || type === 'hidden' || type === 'array' || type === 'number') name = name.slice(0, 40);
    const key = `${type}:${name.slice(0, 60)}`;
    const row = byKey.get(key) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += nodes[i + iSize];
    byKey.set(key, row);
  }
  return byKey;
}

const [beforePath, afterPath, perArg] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  console.error('usage: node scripts/bench/heap-diff.mjs <before.heapsnapshot> <after.heapsnapshot> [per]');
  process.exit(2);
}
const per = Number(perArg ?? 1);
const before = summarise(beforePath);
const after = summarise(afterPath);
const rows = [];
let total = 0;
for (const [key, a] of after) {
  const b = before.get(key) ?? { count: 0, bytes: 0 };
  const bytes = a.bytes - b.bytes;
  total += bytes;
  if (Math.abs(bytes) < 1024) continue;
  rows.push({ key, count: a.count - b.count, bytes, perItem: +(bytes / per).toFixed(1) });
}
rows.sort((x, y) => y.bytes - x.bytes);
console.table(rows.slice(0, 40));
console.log(`total shallow growth: ${total} bytes (${(total / per).toFixed(1)} per item)`);
