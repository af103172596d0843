#!/usr/bin/env node
// The `svc` command (cli/src/main.ts, built to dist/). A committed file, so npm can link it before the first build.
import '../dist/main.js';
