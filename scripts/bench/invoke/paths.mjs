// The three invoke paths that the instructions and allocations benches compare, process by process (100 B
// payloads, as in invoke-peers):
//   svc     our SDK caller → engine → our SDK executor
//   relay   raw `ws` caller → a `ws` relay that parses and re-serialises every JSON frame → raw `ws` executor
//   iii     iii-sdk caller → engine → iii-sdk executor
// `startPath` starts one path's three processes with the same Node.js options (and under the same wrapper, such as
// valgrind); `comparisonRows` turns a figure per process into rows against another path's same processes.
import { role, startEngineProcess, stopProcess } from './procs.mjs';

/** What each of a path's three processes is, in the order of the figures: middle process, executor, caller. */
const PROCESS = ['middle process', 'executor', 'caller'];
export const WHO = {
  svc: ['engine', "our SDK's executor", "our SDK's caller"],
  relay: ['JSON relay', 'raw ws executor', 'raw ws caller'],
  iii: ['engine', 'iii-sdk executor', 'iii-sdk caller'],
};
const ROLE_NAMES = {
  svc: ['sdk-executor', 'sdk-caller'],
  relay: ['executor', 'caller'],
  iii: ['iii-executor', 'iii-caller'],
};

/**
 * One path's processes, started: `caller` is the role the windows are asked of (invoke/drive.mjs's commands),
 * `pids` the three processes (middle, executor, caller) and `stop()` ends them all. The executor is given
 * `registrationMs` to register before the caller starts (a process under callgrind runs its registration slowly).
 */
export async function startPath(kind, { execArgv = [], wrapper, readyMs, registrationMs = 300 } = {}) {
  const stops = [];
  const stop = async () => {
    for (const s of [...stops].reverse()) await s();
  };
  try {
    let url;
    let middlePid;
    if (kind === 'relay') {
      const relay = role('json-relay', '', {}, execArgv, wrapper);
      stops.push(() => stopProcess(relay.child, 'SIGKILL'));
      const { port } = await relay.ready;
      url = `ws://127.0.0.1:${port}`;
      middlePid = relay.child.pid;
    } else {
      const engine = await startEngineProcess({ wrapper, readyMs, execArgv });
      stops.push(() => engine.stop());
      url = engine.url;
      middlePid = engine.pid;
    }
    const suffix = kind === 'relay' ? ['/exec', '/call'] : ['', ''];
    const [executorName, callerName] = ROLE_NAMES[kind];
    const executor = role(executorName, url + suffix[0], {}, execArgv, wrapper);
    stops.push(() => stopProcess(executor.child, 'SIGKILL'));
    await executor.ready;
    await new Promise((r) => setTimeout(r, registrationMs));
    const caller = role(callerName, url + suffix[1], {}, execArgv, wrapper);
    stops.push(() => stopProcess(caller.child, 'SIGKILL'));
    await caller.ready;
    return { caller, pids: [middlePid, executor.child.pid, caller.child.pid], stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Rows of one path's figures (`own[mode][process]`, modes `seq` and `tput`) against another's, and their sums. */
function pathRows(kind, own, against, theirs, { peer, what, unit, round }) {
  const out = [];
  for (const mode of ['seq', 'tput']) {
    const label = mode === 'seq' ? 'sequential' : '@256';
    const row = (name, value, floor, peerPart) => ({
      name: `${what} ${label}, ${kind} path: ${name}`,
      value: round(value),
      unit,
      floor: round(floor),
      peer: `${peer}: ${peerPart}`,
      ratio: Math.round((value / floor) * 100) / 100,
    });
    for (let i = 0; i < 3; i++) {
      const theirName = WHO[against][i].startsWith('our') ? WHO[against][i] : `the ${WHO[against][i]}`;
      out.push(row(`${WHO[kind][i]} (against ${theirName})`, own[mode][i], theirs[mode][i], PROCESS[i]));
    }
    out.push(row('its three processes', sum(own[mode]), sum(theirs[mode]), 'three processes'));
  }
  return out;
}

/**
 * A path's two windows, sequential then at 256 outstanding: `measure(cmd, calls)` asks the caller for one window's
 * calls and returns what it measured. Each window comes right after unmeasured calls of its own kind and an idle
 * pause (`settleMs`), with both kinds run before the first: V8 compiles hot functions on a helper thread (which
 * valgrind runs slowly), and a function optimized for one kind of call is often deoptimized by the first calls of
 * the other. Measured right after the other kind, a window ran part of its per-call code unoptimized.
 */
export async function measureWindows(caller, { warmSeq, warmTput, seq, tput, settleMs, size = 100 }, measure) {
  const tputCmd = (calls) => ({ cmd: 'tput', concurrency: 256, calls, warmMs: 0, size });
  const warm = async (mode) => {
    if (mode === 'seq') await caller.ask({ cmd: 'seq', n: 1, warm: warmSeq, size });
    else await caller.ask(tputCmd(warmTput));
    await new Promise((r) => setTimeout(r, settleMs));
  };
  await warm('seq');
  await warm('tput');
  await warm('seq');
  const seqFigures = await measure({ cmd: 'seq', n: seq, warm: 0, size }, seq);
  await warm('tput');
  const tputFigures = await measure(tputCmd(tput), tput);
  return { seq: seqFigures, tput: tputFigures };
}

/**
 * The rows of the paths measured (`figures[kind][mode][process]`): our SDK's path against the JSON relay's, and
 * iii-sdk's against ours, each where both were measured. `what` names the figure (`k instructions per call`) and
 * `round` rounds a value for its row.
 */
export function comparisonRows(figures, { what, unit, round }) {
  const rows = { what, unit, round };
  const out = [];
  if (figures.svc && figures.relay) {
    out.push(...pathRows('svc', figures.svc, 'relay', figures.relay, { ...rows, peer: 'the JSON relay path' }));
  }
  if (figures.iii && figures.svc) {
    out.push(...pathRows('iii', figures.iii, 'svc', figures.svc, { ...rows, peer: 'our SDK path' }));
  }
  return out;
}
