#!/usr/bin/env node
/**
 * The svc-queue executable: runs the worker program (program.ts), from its bundle when `npm run build` made one
 * and it is current (`@svc/config-kit/bundle`).
 */
import { runProgram } from '@svc/config-kit/bundle';

await runProgram(import.meta.url);
