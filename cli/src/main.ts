#!/usr/bin/env node
/**
 * The `svc` executable: runs the command's program (program.ts), from its bundle when `npm run build` made one and
 * it is current (`@svc/config-kit/bundle`).
 */
import { currentProgram, withoutPretenuring } from '@svc/config-kit/bundle';

withoutPretenuring(); // the engine runs in this process

await import(currentProgram(import.meta.url));
