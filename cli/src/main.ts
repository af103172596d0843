#!/usr/bin/env node
/**
 * The `svc` executable: runs the command's program (program.ts), from its bundle when `npm run build` made one and
 * it is current (`@svc/config-kit/bundle`).
 */
import { runProgram, withoutPretenuring } from '@svc/config-kit/bundle';

withoutPretenuring(); // the engine runs in this process

await runProgram(import.meta.url);
