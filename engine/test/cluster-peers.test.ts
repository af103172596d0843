/** The cluster's peer directory: announcements in, routing index and listings out, expiry and leaving. */
import { describe, expect, it } from 'vitest';
import { PeerDirectory, type PeerChange } from '../src/modules/cluster/peers.js';
import { WIRE_VERSION, encode, parseAnnouncement, type Announcement } from '../src/modules/cluster/wire.js';

function announcement(engine: string, functions: [string, number][], extra: Partial<Announcement> = {}): Announcement {
  return {
    v: WIRE_VERSION,
    engine,
    url: `ws://${engine}:49134`,
    functions: functions.map(([id, replicas]) => ({ id, replicas, worker_name: 'w' })),
    workers: [],
    trigger_types: [],
    triggers: [],
    ...extra,
  };
}

describe('PeerDirectory', () => {
  it('indexes providers by function, ignores its own engine, and reports joins and updates', () => {
    const changes: PeerChange['kind'][] = [];
    const dir = new PeerDirectory('me', (c) => changes.push(c.kind));
    dir.apply(announcement('me', [['f', 1]]), 0);
    dir.apply(announcement('b', [['f', 2]]), 0);
    dir.apply(
      announcement('c', [
        ['f', 1],
        ['g', 1],
      ]),
      0,
    );
    expect(dir.providers('f')).toEqual([
      { engineId: 'b', replicas: 2 },
      { engineId: 'c', replicas: 1 },
    ]);
    expect(dir.hasFunction('g')).toBe(true);
    expect(dir.providers('h')).toBeUndefined();
    dir.apply(announcement('c', [['f', 1]]), 10); // g left c
    expect(dir.hasFunction('g')).toBe(false);
    dir.apply(announcement('c', [['f', 1]]), 20); // a heartbeat: nothing changed
    expect(changes).toEqual(['joined', 'joined', 'updated']);
    expect(dir.functions().find((f) => f.id === 'f')).toMatchObject({ replicas: 3, engineIds: ['b', 'c'] });
  });

  it('drops an engine that leaves or stays silent past the timeout', () => {
    const left: string[] = [];
    const dir = new PeerDirectory('me', (c) => c.kind === 'left' && left.push(`${c.peer.id}: ${c.why}`));
    dir.apply(announcement('b', [['f', 1]]), 0);
    dir.apply(announcement('c', [['f', 1]]), 0);
    dir.apply(announcement('b', [['f', 1]]), 900);
    dir.expire(1100, 1000);
    expect(left).toEqual(['c: no heartbeat for 1000 ms']);
    dir.apply(announcement('b', [], { leaving: true }), 1200);
    expect(left[1]).toBe('b: it left the cluster');
    expect(dir.providers('f')).toBeUndefined();
  });

  it('refuses a malformed announcement with the reason', () => {
    const bytes = (o: unknown) => new TextEncoder().encode(JSON.stringify(o));
    expect(parseAnnouncement(bytes('x'))).toEqual({ ok: false, reason: 'not a JSON object' });
    expect(parseAnnouncement(bytes({ ...announcement('b', []), v: 99 }))).toMatchObject({ ok: false });
    const bad = { ...announcement('b', []), functions: [{ id: 'f', replicas: -1, worker_name: 'w' }] };
    expect(parseAnnouncement(bytes(bad))).toEqual({ ok: false, reason: 'functions: malformed list' });
    expect(parseAnnouncement(encode(announcement('b', [['f', 1]])))).toMatchObject({ ok: true });
  });
});
