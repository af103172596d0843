/** The start-up note on a host whose idle vCPUs halt at once, read from a sysfs tree laid out in a temp dir. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostLatencyNote, readIdleHalt } from '../src/start/host-notes.js';

/** A root with the cpuidle driver and, when given, the haltpoll module's polling time (as sysfs prints them). */
function sysfs(driver: string | undefined, pollNs?: string): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-sysfs-'));
  if (driver !== undefined) {
    mkdirSync(join(root, 'sys/devices/system/cpu/cpuidle'), { recursive: true });
    writeFileSync(join(root, 'sys/devices/system/cpu/cpuidle/current_driver'), `${driver}\n`);
  }
  if (pollNs !== undefined) {
    mkdirSync(join(root, 'sys/module/haltpoll/parameters'), { recursive: true });
    writeFileSync(join(root, 'sys/module/haltpoll/parameters/guest_halt_poll_ns'), `${pollNs}\n`);
  }
  return root;
}

describe('readIdleHalt and hostLatencyNote', () => {
  it('haltpoll with no polling: a note naming the setting and where the docs explain it', () => {
    const halt = readIdleHalt(sysfs('haltpoll', '0'));
    expect(halt).toEqual({ driver: 'haltpoll', pollNs: 0 });
    const note = hostLatencyNote(halt);
    expect(note).toContain('guest_halt_poll_ns=0');
    expect(note).toContain('Latency on virtual machines');
  });

  it('haltpoll that polls before it halts: no note', () => {
    const halt = readIdleHalt(sysfs('haltpoll', '200000'));
    expect(halt).toEqual({ driver: 'haltpoll', pollNs: 200000 });
    expect(hostLatencyNote(halt)).toBeUndefined();
  });

  it('another idle driver, no cpuidle at all, or an unreadable setting: nothing to say', () => {
    for (const root of [
      sysfs('acpi_idle', '0'),
      sysfs(undefined),
      sysfs('haltpoll'),
      sysfs('haltpoll', 'n/a'),
      sysfs('haltpoll', ''),
    ]) {
      expect(readIdleHalt(root)).toBeUndefined();
      expect(hostLatencyNote(readIdleHalt(root))).toBeUndefined();
    }
  });
});
