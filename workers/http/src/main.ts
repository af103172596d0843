#!/usr/bin/env node
/**
 * The svc-http executable: runs the worker program (program.ts), from its bundle when `npm run build` made one
 * and it is current (`@svc/config-kit/bundle`).
 */
import { currentProgram, withoutPretenuring } from '@svc/config-kit/bundle';

withoutPretenuring();

await import(currentProgram(import.meta.url));
