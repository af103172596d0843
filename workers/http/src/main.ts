#!/usr/bin/env node
/**
 * The svc-http executable: runs the worker program (program.ts), from its bundle when `npm run build` made one
 * and it is current (`@svc/config-kit/bundle`).
 */
import { setFlagsFromString } from 'node:v8';
import { currentProgram } from '@svc/config-kit/bundle';

// Before the program loads: V8's allocation-site pretenuring, after a moment in which requests outlived a few
// young-generation collections (a busy machine), went on allocating the request path's objects in the old
// generation for the life of the process. In about half the runs of the HTTP bench svc-http then collected its old
// generation every second or two and spent 32-35 µs of CPU per request instead of 24-25 (docs/performance.md).
setFlagsFromString('--no-allocation-site-pretenuring');

await import(currentProgram(import.meta.url));
