#!/usr/bin/env node
/**
 * The svc-http executable: runs the worker program (program.ts), from its bundle when `npm run build` made one
 * and it is current (`@svc/config-kit/bundle`).
 */
import { runProgram, withoutPretenuring } from '@svc/config-kit/bundle';

withoutPretenuring();

await runProgram(import.meta.url);
