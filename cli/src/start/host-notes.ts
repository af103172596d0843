/**
 * What the host does that sets svc's latency and that only its operator can change, read once at start-up and
 * shown beside the ready banner: a virtual machine whose idle vCPUs halt at once (the `haltpoll` cpuidle driver
 * with `guest_halt_poll_ns` at 0) wakes every process of a call through the hypervisor, which took half or more of
 * a lone call's time on the guests measured (docs/deploying.md, "Latency on virtual machines").
 *
 * Reads two small sysfs files; anything missing or unreadable (another OS, another driver, a container without
 * /sys) means there is nothing to say.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the host's idle vCPUs do, as read from sysfs. */
export interface IdleHalt {
  /** `/sys/devices/system/cpu/cpuidle/current_driver`. */
  driver: string;
  /** `/sys/module/haltpoll/parameters/guest_halt_poll_ns`: how long an idle vCPU polls before it halts. */
  pollNs: number;
}

/** The `haltpoll` driver's settings, or undefined where it does not drive the idle vCPUs. `root` is `/` but in tests. */
export function readIdleHalt(root = '/'): IdleHalt | undefined {
  const driver = readText(join(root, 'sys/devices/system/cpu/cpuidle/current_driver'));
  if (driver !== 'haltpoll') return undefined;
  const text = readText(join(root, 'sys/module/haltpoll/parameters/guest_halt_poll_ns'));
  const pollNs = text ? Number(text) : Number.NaN; // an empty file is no setting, not 0
  return Number.isInteger(pollNs) && pollNs >= 0 ? { driver, pollNs } : undefined;
}

/** The banner's note on the host, if it has one to give. */
export function hostLatencyNote(halt: IdleHalt | undefined): string | undefined {
  if (halt === undefined || halt.pollNs !== 0) return undefined;
  return (
    'idle vCPUs halt at once (cpuidle haltpoll, guest_halt_poll_ns=0): waking each process of a call goes ' +
    "through the hypervisor, half or more of a lone call's latency on the VMs measured (docs/deploying.md, " +
    '"Latency on virtual machines")'
  );
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
}
