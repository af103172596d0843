/**
 * The thread behind schema-checker.ts: compiles a configuration's JSON Schema with Ajv and checks a value against
 * it, one request at a time. It keeps nothing between requests: each schema leaves Ajv's registry once compiled, so
 * schemas carrying the same `$id` (one configuration registered again, or two that share an `$id`) never collide.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';
import type { Ajv } from 'ajv';
import type { CheckReply, CheckRequest } from './schema-checker.js';

const requireHere = createRequire(import.meta.url);
const { Ajv: AjvClass } = requireHere('ajv') as { Ajv: typeof Ajv };
const ajv = new AjvClass({ allErrors: true, strict: false });

function answer(request: CheckRequest): CheckReply {
  let validate;
  try {
    validate = ajv.compile(request.schema as object);
  } catch (err) {
    return { seq: request.seq, schemaError: (err as Error).message };
  } finally {
    if (typeof request.schema === 'object' && request.schema !== null) ajv.removeSchema(request.schema);
  }
  if (!request.hasValue) return { seq: request.seq };
  try {
    if (validate(request.value)) return { seq: request.seq };
  } catch (err) {
    return { seq: request.seq, valueError: `checking it failed: ${(err as Error).message}` };
  }
  const why = (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`).join('; ');
  return { seq: request.seq, valueError: why };
}

const port = parentPort;
if (port !== null) {
  port.on('message', (request: CheckRequest) => port.postMessage(answer(request)));
  port.postMessage('ready');
}
