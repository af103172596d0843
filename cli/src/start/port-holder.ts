/**
 * Which process listens on a TCP port, when the OS lets us see it (Linux: /proc/net/tcp{,6} give the listening
 * socket's inode, /proc/<pid>/fd shows which process holds it). Elsewhere, or for another user's process,
 * the answer is undefined and the message says only that the port is taken.
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface PortHolder {
  pid: number;
  command: string;
}

const LISTEN = '0A';

export function findPortHolder(port: number): PortHolder | undefined {
  if (process.platform !== 'linux') return undefined;
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return undefined;
  for (const pid of pids()) {
    if (holdsSocket(pid, inodes)) return { pid, command: commandLine(pid) };
  }
  return undefined;
}

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (local?.endsWith(`:${hexPort}`) && fields[3] === LISTEN && fields[9]) inodes.add(fields[9]);
    }
  }
  return inodes;
}

function pids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^[0-9]+$/.test(name))
      .map(Number);
  } catch {
    return [];
  }
}

function holdsSocket(pid: number, inodes: Set<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // another user's process, or gone
  }
  for (const fd of fds) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      const match = /^socket:\[(\d+)\]$/.exec(target);
      if (match?.[1] && inodes.has(match[1])) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

function commandLine(pid: number): string {
  try {
    const text = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return text.length > 120 ? `${text.slice(0, 117)}...` : text;
  } catch {
    return '?';
  }
}
