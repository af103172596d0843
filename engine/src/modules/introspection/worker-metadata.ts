/**
 * Validation of what `engine::workers::register` reports (docs/protocol.md, "1.6 Worker metadata"). Untrusted: every
 * field is checked, names and descriptions are cut to 280 characters with control and bidi characters removed.
 */
import type { WorkerMetadata } from '../module.js';

const MAX_TEXT = 280;
// C0/C1 controls and the bidi overrides/isolates (U+202A–U+202E, U+2066–U+2069).
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g; // eslint-disable-line no-control-regex

function text(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  return value.replace(UNSAFE, '').slice(0, MAX_TEXT);
}

export function sanitizeMetadata(raw: unknown): WorkerMetadata {
  if (typeof raw !== 'object' || raw === null) return {};
  const r = raw as Record<string, unknown>;
  const meta: WorkerMetadata = {};
  const runtime = text(r.runtime);
  if (runtime !== undefined) meta.runtime = runtime;
  const version = text(r.version);
  if (version !== undefined) meta.version = version;
  const name = text(r.name);
  if (name) meta.name = name;
  const description = text(r.description);
  if (description !== undefined) meta.description = description;
  const os = text(r.os);
  if (os !== undefined) meta.os = os;
  if (typeof r.pid === 'number' && Number.isInteger(r.pid)) meta.pid = r.pid;
  if (r.isolation === null || typeof r.isolation === 'string') meta.isolation = r.isolation ? text(r.isolation) : null;
  if (typeof r.telemetry === 'object' && r.telemetry !== null) meta.telemetry = r.telemetry;
  return meta;
}
