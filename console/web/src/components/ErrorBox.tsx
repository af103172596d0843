import { ApiError } from '../api';

const HINTS: Record<string, string> = {
  engine_unreachable: 'The console is not connected to the engine. Start it with `svc`, or check --engine-host.',
  console_unreachable: 'The console server is down. Restart `svc console`.',
  TIMEOUT: 'The engine did not answer in time.',
  invocation_timeout: 'The call timed out.',
};

/** An error shown in place, with its code: never a blank page. */
export function ErrorBox({ error, what }: { error: unknown; what?: string }) {
  const e = error instanceof ApiError ? error : undefined;
  const code = e?.code ?? 'error';
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div className="error-box" role="alert" data-testid="error-box">
      <div>
        <span className="code">{code}</span>
        {what ? <strong> {what}: </strong> : ' '}
        {message}
      </div>
      {HINTS[code] && <div className="hint">{HINTS[code]}</div>}
      {e?.stacktrace && <pre className="stack">{e.stacktrace}</pre>}
    </div>
  );
}

/** Shown when the observability worker (engine::traces::*, engine::logs::*) is not running. */
export function ObservabilityOff() {
  return (
    <div className="notice" data-testid="observability-off">
      <strong>observability not enabled</strong>: no worker provides engine::traces::list / engine::logs::list. Add the
      observability module to the engine's config to see traces and logs here.
    </div>
  );
}
