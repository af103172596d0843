/**
 * On Linux, a supervised child can be told by the kernel to receive SIGTERM when the engine dies, even by
 * `kill -9` (prctl PR_SET_PDEATHSIG, applied by util-linux `setpriv --pdeathsig`, which then execs the command
 * in place: same pid, no shell, arguments untouched). That makes "no orphans" hold for any command, not only for
 * workers built on the SDK (which also exit when their engine connection is gone). Where `setpriv` is missing,
 * the command runs as is.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

let cached: string | null | undefined;

export function findSetpriv(): string | undefined {
  if (cached !== undefined) return cached ?? undefined;
  cached = null;
  if (process.platform !== 'linux') return undefined;
  for (const dir of (process.env['PATH'] ?? '/usr/bin:/bin').split(delimiter)) {
    const candidate = join(dir, 'setpriv');
    try {
      accessSync(candidate, constants.X_OK);
      cached = candidate;
      break;
    } catch {
      // not here
    }
  }
  return cached ?? undefined;
}

/** The command line that runs `command args` with a parent-death SIGTERM, when the platform allows it. */
export function withParentDeathSignal(command: string, args: readonly string[]): { command: string; args: string[] } {
  const setpriv = findSetpriv();
  if (!setpriv) return { command, args: [...args] };
  return { command: setpriv, args: ['--pdeathsig', 'SIGTERM', '--', command, ...args] };
}
