/**
 * The trace-context hook over in-memory connections: a traceparent returned by an `invocationStarted` observer is
 * what the executor receives, whether the core builds the frame or the executor's transport forwards the caller's
 * (then as `forwardInvoke`'s `trace`); without one, the caller's goes through unchanged.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { EngineCore } from '../src/core/engine-core.js';
import type { ForwardOutcome, RawFrame } from '../src/core/connection.js';
import { forwardableText } from '../src/transport/raw-frame.js';
import { MemoryConnection } from './memory-connection.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const SPAN = '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01';

/** A connection that forwards raw frames the way the WebSocket transport does, recording the text. */
class ForwardingConnection extends MemoryConnection {
  readonly forwarded: string[] = [];
  forwardInvoke(
    raw: RawFrame,
    data: unknown,
    callerWorkerId: string | undefined,
    trace?: { previous: string | undefined; next: string },
  ): ForwardOutcome {
    const text = forwardableText(raw, data, callerWorkerId, trace);
    if (text === undefined) return 'declined';
    this.forwarded.push(text);
    return 'sent';
  }
}

function setup(forwarding = false) {
  const core = new EngineCore({ logger: pino({ level: 'silent' }) });
  const execConn = forwarding ? new ForwardingConnection() : new MemoryConnection();
  const exec = core.attach(execConn);
  const caller = core.attach(new MemoryConnection());
  core.receive(exec, { type: 'registerfunction', id: 'f' });
  const invoke = (traceparent: string | undefined): string => {
    const id = randomUUID();
    const frame = { type: 'invokefunction' as const, invocation_id: id, function_id: 'f', data: { a: 1 } };
    const message = traceparent === undefined ? frame : { ...frame, traceparent };
    core.receive(caller, message, JSON.stringify(message));
    return id;
  };
  return { core, execConn, invoke };
}

describe('the trace-context hook (invocationStarted returns a traceparent)', () => {
  it('replaces the caller traceparent in a frame the core builds, and the observer sees the caller one', () => {
    const { core, execConn, invoke } = setup();
    const seen: (string | undefined)[] = [];
    core.hooks.observe({
      invocationStarted: (e) => {
        seen.push(e.traceparent);
        return SPAN;
      },
    });
    invoke(PARENT);
    expect(seen).toEqual([PARENT]);
    expect(execConn.of('invokefunction')[0]).toMatchObject({ traceparent: SPAN, data: { a: 1 } });
  });

  it('hands the replacement to the transport that forwards the raw frame, with or without a caller traceparent', () => {
    const { core, execConn, invoke } = setup(true);
    core.hooks.observe({ invocationStarted: () => SPAN });
    invoke(PARENT);
    invoke(undefined);
    const forwarded = (execConn as ForwardingConnection).forwarded.map(
      (t) => JSON.parse(t) as { traceparent?: string },
    );
    expect(forwarded.map((f) => f.traceparent)).toEqual([SPAN, SPAN]);
  });

  it('leaves the frame as it came when no observer returns one (an observer returning nothing included)', () => {
    const { core, execConn, invoke } = setup(true);
    core.hooks.observe({ invocationStarted: () => undefined });
    const id = invoke(PARENT);
    const text = (execConn as ForwardingConnection).forwarded[0]!;
    // as it came, plus the `_caller_worker_id` the engine always splices into an object `data`
    expect(JSON.parse(text)).toMatchObject({
      type: 'invokefunction',
      invocation_id: id,
      function_id: 'f',
      data: { a: 1 },
      traceparent: PARENT,
    });
    expect(text.indexOf('"traceparent"')).toBe(text.lastIndexOf('"traceparent"'));
  });

  it('the last observer that returns one wins; a throwing one changes nothing', () => {
    const { core, execConn, invoke } = setup();
    const OTHER = '00-0af7651916cd43dd8448eb211c80319c-1111111111111111-01';
    core.hooks.observe({ invocationStarted: () => OTHER });
    core.hooks.observe({
      invocationStarted: () => {
        throw new Error('observer bug');
      },
    });
    core.hooks.observe({ invocationStarted: () => SPAN });
    invoke(PARENT);
    expect(execConn.of('invokefunction')[0]?.traceparent).toBe(SPAN);
  });
});
