import { describe, expect, it } from 'vitest';
import { WorkerInvocations, type InvocationLinks } from '../src/core/worker-invocations.js';

interface Item extends InvocationLinks {
  name: string;
}

const item = (name: string): Item => ({
  name,
  execPrev: undefined,
  execNext: undefined,
  waitPrev: undefined,
  waitNext: undefined,
});
const names = (list: WorkerInvocations<Item>): string[] => [...list].map((i) => i.name);

describe('a worker’s invocations in one role', () => {
  it('walks oldest first and stays whole after removals at the head, the middle and the tail', () => {
    const list = new WorkerInvocations<Item>(true);
    const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(item) as [Item, Item, Item, Item, Item];
    for (const i of [a, b, c, d, e]) list.add(i);
    expect(names(list)).toEqual(['a', 'b', 'c', 'd', 'e']);
    list.delete(c);
    list.delete(a);
    list.delete(e);
    expect(names(list)).toEqual(['b', 'd']);
    expect(list.size).toBe(2);
    list.add(a);
    expect(names(list)).toEqual(['b', 'd', 'a']);
    for (const i of [b, d, a]) list.delete(i);
    expect(names(list)).toEqual([]);
    expect(list.size).toBe(0);
    list.add(e);
    expect(names(list)).toEqual(['e']);
  });

  it('keeps an invocation in its executor’s list and its caller’s at once (a worker calling itself)', () => {
    const executing = new WorkerInvocations<Item>(true);
    const waiting = new WorkerInvocations<Item>(false);
    const [self, other] = [item('self'), item('other')];
    executing.add(self);
    waiting.add(other);
    waiting.add(self);
    executing.add(other);
    expect(names(executing)).toEqual(['self', 'other']);
    expect(names(waiting)).toEqual(['other', 'self']);
    executing.delete(self);
    expect(names(executing)).toEqual(['other']);
    expect(names(waiting)).toEqual(['other', 'self']);
    waiting.delete(other);
    expect(names(waiting)).toEqual(['self']);
  });

  it('matches a Set under random adds and removals', () => {
    const list = new WorkerInvocations<Item>(false);
    const model = new Set<Item>();
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let step = 0; step < 5_000; step++) {
      if (model.size > 0 && random() < 0.5) {
        const victims = [...model];
        const victim = victims[Math.floor(random() * victims.length)]!;
        model.delete(victim);
        list.delete(victim);
      } else {
        const added = item(String(step));
        model.add(added);
        list.add(added);
      }
      if (step % 97 === 0) expect([...list]).toEqual([...model]);
    }
    expect([...list]).toEqual([...model]);
    expect(list.size).toBe(model.size);
  });
});
