/**
 * The reference model of a state store and the fast-check commands that compare a real adapter against it (random
 * sequences of set/get/delete/update/list calls; every answer must match the model). Values go through a JSON round
 * trip first so the model holds what a store can hold.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { JsonValue, StateAdapter, StateChange } from '../../src/adapters/types.js';
import type { UpdateOp } from '@svc/sdk';
import { updateMutation } from '../../src/update-mutation.js';

export class Model {
  readonly scopes = new Map<string, Map<string, JsonValue>>();
  readonly changes: StateChange[] = [];

  get(scope: string, key: string): JsonValue | undefined {
    return this.scopes.get(scope)?.get(key);
  }

  write(scope: string, key: string, value: JsonValue | undefined): void {
    const old = this.get(scope, key);
    if (value === undefined && old === undefined) return;
    const event_type = value === undefined ? 'state:deleted' : old === undefined ? 'state:created' : 'state:updated';
    this.changes.push({ event_type, scope, key, old_value: old ?? null, new_value: value ?? null });
    const entries = this.scopes.get(scope) ?? new Map<string, JsonValue>();
    if (value === undefined) entries.delete(key);
    else entries.set(key, value);
    if (entries.size === 0) this.scopes.delete(scope);
    else this.scopes.set(scope, entries);
  }

  list(scope: string): { key: string; value: JsonValue }[] {
    const entries = [...(this.scopes.get(scope) ?? new Map<string, JsonValue>())];
    return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, value]) => ({ key, value }));
  }

  groups(): string[] {
    return [...this.scopes.keys()].sort();
  }
}

export const opsMutation = (ops: UpdateOp[]) => updateMutation(ops);

export interface Real {
  adapter: StateAdapter;
  seen: StateChange[];
}

const roundTrip = (value: JsonValue): JsonValue => JSON.parse(JSON.stringify(value)) as JsonValue;

export const scopeArb = fc.constantFrom('a', 'b', 'sc:ope');
export const keyArb = fc.constantFrom('x', 'y', 'z.w');
export const valueArb = fc.jsonValue({ maxDepth: 2 }).map((value) => roundTrip(value as JsonValue));
const pathArb = fc.constantFrom('', 'n', 'l', 'o', 'constructor');
export const opArb: fc.Arbitrary<UpdateOp> = fc.oneof(
  fc.record({ type: fc.constant('set' as const), path: pathArb, value: valueArb }),
  fc.record({
    type: fc.constant('merge' as const),
    path: fc.option(fc.oneof(pathArb, fc.array(pathArb, { maxLength: 2 })), { nil: undefined }),
    value: valueArb,
  }),
  fc.record({ type: fc.constant('increment' as const), path: pathArb, by: fc.integer({ min: -5, max: 5 }) }),
  fc.record({ type: fc.constant('decrement' as const), path: pathArb, by: fc.integer({ min: -5, max: 5 }) }),
  fc.record({
    type: fc.constant('append' as const),
    path: fc.option(fc.oneof(pathArb, fc.array(pathArb, { maxLength: 2 })), { nil: undefined }),
    value: valueArb,
  }),
  fc.record({ type: fc.constant('remove' as const), path: pathArb }),
);

type Cmd = fc.AsyncCommand<Model, Real>;

class SetCmd implements Cmd {
  constructor(
    readonly scope: string,
    readonly key: string,
    readonly value: JsonValue,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const result = await r.adapter.set(this.scope, this.key, this.value);
    expect(result.old_value).toEqual(m.get(this.scope, this.key));
    m.write(this.scope, this.key, this.value);
  }
  toString = () => `set(${this.scope},${this.key},${JSON.stringify(this.value)})`;
}

class GetCmd implements Cmd {
  constructor(
    readonly scope: string,
    readonly key: string,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    expect(await r.adapter.get(this.scope, this.key)).toEqual(m.get(this.scope, this.key));
  }
  toString = () => `get(${this.scope},${this.key})`;
}

class DeleteCmd implements Cmd {
  constructor(
    readonly scope: string,
    readonly key: string,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    expect(await r.adapter.delete(this.scope, this.key)).toEqual(m.get(this.scope, this.key));
    m.write(this.scope, this.key, undefined);
  }
  toString = () => `delete(${this.scope},${this.key})`;
}

class UpdateCmd implements Cmd {
  constructor(
    readonly scope: string,
    readonly key: string,
    readonly ops: UpdateOp[],
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const old = m.get(this.scope, this.key);
    const next = opsMutation(this.ops)(old);
    const result = await r.adapter.update(this.scope, this.key, opsMutation(this.ops));
    expect(result.old_value).toEqual(old);
    expect(result.written).toBe(next !== undefined);
    if (next !== undefined) {
      expect(result.new_value).toEqual(next);
      m.write(this.scope, this.key, roundTrip(next));
    }
  }
  toString = () => `update(${this.scope},${this.key},${JSON.stringify(this.ops)})`;
}

class ListCmd implements Cmd {
  constructor(readonly scope: string) {}
  check = () => true;
  async run(m: Model, r: Real) {
    expect(await r.adapter.list(this.scope)).toEqual(m.list(this.scope));
  }
  toString = () => `list(${this.scope})`;
}

class ListGroupsCmd implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    expect(await r.adapter.listGroups()).toEqual(m.groups());
  }
  toString = () => 'listGroups()';
}

export const commandsArb = fc.commands(
  [
    fc.tuple(scopeArb, keyArb, valueArb).map(([s, k, v]) => new SetCmd(s, k, v)),
    fc.tuple(scopeArb, keyArb).map(([s, k]) => new GetCmd(s, k)),
    fc.tuple(scopeArb, keyArb).map(([s, k]) => new DeleteCmd(s, k)),
    fc.tuple(scopeArb, keyArb, fc.array(opArb, { maxLength: 4 })).map(([s, k, ops]) => new UpdateCmd(s, k, ops)),
    scopeArb.map((s) => new ListCmd(s)),
    fc.constant(new ListGroupsCmd()),
  ],
  { maxCommands: 25 },
);
