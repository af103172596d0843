#!/usr/bin/env node
/**
 * The `svc` command: `svc [start] [-c file]` runs the engine; `svc trigger …` invokes a function.
 * Exit codes: exit-codes.ts (and README.md "Exit codes").
 */
import { readFileSync } from 'node:fs';
import { intFlag, parseArgs, stringFlag } from './args.js';
import { EXIT, UsageError } from './exit-codes.js';
import { MAIN_HELP, START_HELP, TRIGGER_HELP } from './help.js';
import { buildPayload } from './payload.js';

function version(): string {
  const pkg: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return pkg && typeof pkg === 'object' && 'version' in pkg ? String(pkg.version) : 'unknown';
}

async function run(argv: string[]): Promise<number | undefined> {
  const command = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : 'start';
  const rest = command === 'start' && argv[0] !== 'start' ? argv : argv.slice(1);
  switch (command) {
    case 'start': {
      const { flags, positionals } = parseArgs(rest, {
        config: { value: true, alias: 'c' },
        help: { value: false, alias: 'h' },
        version: { value: false, alias: 'v' },
      });
      if (flags['version']) {
        process.stdout.write(`svc ${version()}\n`);
        return EXIT.ok;
      }
      if (flags['help']) {
        process.stdout.write(argv[0] === 'start' ? START_HELP : MAIN_HELP);
        return EXIT.ok;
      }
      if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
      // Loaded only when needed, so `svc --help` and usage errors answer at once.
      const { startCommand } = await import('./commands/start.js');
      return startCommand({ configPath: stringFlag(flags, 'config') });
    }
    case 'trigger':
    case 't': {
      const { flags, positionals } = parseArgs(rest, {
        json: { value: true },
        address: { value: true },
        port: { value: true },
        'timeout-ms': { value: true },
        help: { value: false, alias: 'h' },
      });
      const [functionId, ...pairs] = positionals;
      const target = {
        address: stringFlag(flags, 'address') ?? 'localhost',
        port: intFlag(flags, 'port', 1, 65535) ?? 49134,
      };
      if (flags['help']) {
        process.stdout.write(TRIGGER_HELP);
        if (!functionId) return EXIT.ok;
        // `svc trigger <function_id> --help` also describes that function, as the engine knows it.
        process.stdout.write(`\n${functionId}, as registered (engine::functions::info):\n`);
        const { triggerCommand } = await import('./commands/trigger.js');
        return triggerCommand({
          ...target,
          functionId: 'engine::functions::info',
          payload: { function_id: functionId },
          timeoutMs: 5000,
        });
      }
      if (!functionId) throw new UsageError('svc trigger needs a function id, e.g. svc trigger orders::create qty=1');
      const request = {
        ...target,
        functionId,
        payload: buildPayload(pairs, stringFlag(flags, 'json')),
        timeoutMs: intFlag(flags, 'timeout-ms', 1) ?? 30000,
      };
      const { triggerCommand } = await import('./commands/trigger.js');
      return triggerCommand(request);
    }
    case 'help':
      process.stdout.write(argv[1] === 'trigger' ? TRIGGER_HELP : argv[1] === 'start' ? START_HELP : MAIN_HELP);
      return EXIT.ok;
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

run(process.argv.slice(2)).then(
  (code) => {
    // undefined: the engine is running; it exits on a signal.
    if (code !== undefined) process.exitCode = code;
    if (code !== undefined) setImmediate(() => process.exit(code));
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`svc: ${err.message}\nRun svc --help for usage.\n`);
      process.exit(EXIT.usage);
    }
    process.stderr.write(`svc: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(EXIT.error);
  },
);
