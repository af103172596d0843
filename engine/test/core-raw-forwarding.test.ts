/**
 * Frames forwarded as text (no re-encoding): the executor sees what re-encoding would have produced, and a
 * caller cannot smuggle its own `_caller_worker_id` through the text path.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { decodeFrame, type EngineToWorker } from '@svc/sdk';
import type { ForwardOutcome } from '../src/core/connection.js';
import { EngineCore } from '../src/core/engine-core.js';
import { forwardableText } from '../src/transport/raw-frame.js';
import { MemoryConnection } from './memory-connection.js';

/** A connection that forwards text the way the WebSocket transport decides to. */
class RawConnection extends MemoryConnection {
  readonly texts: string[] = [];
  forwardInvoke(raw: unknown, data: unknown, callerWorkerId: string | undefined): ForwardOutcome {
    const text = forwardableText(raw, data, callerWorkerId);
    return text === undefined ? 'declined' : this.push(text);
  }
  relayResult(raw: unknown): ForwardOutcome {
    return typeof raw === 'string' ? this.push(raw) : 'declined';
  }
  private push(text: string): ForwardOutcome {
    this.texts.push(text);
    this.sent.push(JSON.parse(text) as EngineToWorker);
    return 'sent';
  }
}

function setup() {
  const core = new EngineCore({ logger: pino({ level: 'silent' }) });
  const execConn = new RawConnection();
  const exec = core.attach(execConn);
  const callerConn = new RawConnection();
  const caller = core.attach(callerConn);
  core.receive(exec, { type: 'registerfunction', id: 'f' });
  const send = (frame: object): string => {
    const text = JSON.stringify(frame);
    const decoded = decodeFrame(text);
    if (!decoded.ok) throw new Error(decoded.message);
    core.receive(caller, decoded.message, text);
    return text;
  };
  return { core, exec, execConn, caller, callerConn, send };
}

describe('raw forwarding of calls', () => {
  it('forwards a sync call as text with _caller_worker_id added to data, and relays the result as text', () => {
    const { exec, execConn, caller, callerConn, send, core } = setup();
    const id = randomUUID();
    send({ type: 'invokefunction', invocation_id: id, function_id: 'f', data: { big: 'x'.repeat(100) } });
    expect(execConn.texts).toHaveLength(1);
    expect(execConn.of('invokefunction')[0]).toMatchObject({
      invocation_id: id,
      function_id: 'f',
      data: { big: 'x'.repeat(100), _caller_worker_id: caller.id },
    });
    const result = JSON.stringify({ type: 'invocationresult', invocation_id: id, function_id: 'f', result: 7 });
    const decoded = decodeFrame(result);
    if (decoded.ok) core.receive(exec, decoded.message, result);
    expect(callerConn.texts.at(-1)).toBe(result);
  });

  it('re-encodes when the caller put its own _caller_worker_id in data, overwriting it', () => {
    const { execConn, caller, send } = setup();
    send({
      type: 'invokefunction',
      invocation_id: randomUUID(),
      function_id: 'f',
      data: { _caller_worker_id: 'forged' },
    });
    expect(execConn.texts).toHaveLength(0);
    expect(execConn.of('invokefunction')[0]?.data).toEqual({ _caller_worker_id: caller.id });
  });

  it('re-encodes frames with duplicated keys, so the executor sees what the engine validated', () => {
    const { core, execConn, caller } = setup();
    const text = `{"type":"invokefunction","invocation_id":"${randomUUID()}","function_id":"f","data":{"a":1},"data":{"b":2}}`;
    const decoded = decodeFrame(text);
    if (decoded.ok) core.receive(caller, decoded.message, text);
    expect(execConn.texts).toHaveLength(0);
    expect(execConn.of('invokefunction')[0]?.data).toEqual({ b: 2, _caller_worker_id: caller.id });
  });
});
