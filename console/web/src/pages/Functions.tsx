import { useEffect, useMemo, useState } from 'react';
import { api, enc } from '../api';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { JsonEditor, JsonView, parseJson } from '../components/JsonEditor';
import { initialPayload } from '../components/schema-example';
import { useLive } from '../live';
import { Link, navigate } from '../router';

export interface FunctionSummary {
  function_id: string;
  worker_name: string;
  description?: string;
  replicas?: number;
}

interface FunctionDetail extends FunctionSummary {
  request_schema?: unknown;
  response_schema?: unknown;
  registered_triggers?: { id: string; trigger_type: string; config: unknown }[];
}

interface InvokeAnswer {
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string; stacktrace?: string };
  duration_ms: number;
  trace_id: string | null;
}

export function FunctionsPage({ selected }: { selected: string }) {
  const [search, setSearch] = useState('');
  const [worker, setWorker] = useState('');
  const [internal, setInternal] = useState(false);
  const list = useLoad(
    () => api<{ functions: FunctionSummary[] }>('GET', `functions${internal ? '?include_internal=true' : ''}`),
    [internal],
  );
  useLive(['topology'], () => list.reload());
  const shown = useMemo(() => {
    const q = search.toLowerCase();
    return (list.data?.functions ?? []).filter(
      (f) =>
        (worker === '' || f.worker_name === worker) &&
        (f.function_id.toLowerCase().includes(q) || (f.description ?? '').toLowerCase().includes(q)),
    );
  }, [list.data, search, worker]);
  const workers = [...new Set((list.data?.functions ?? []).map((f) => f.worker_name))].sort();
  return (
    <div className="split">
      <section className="list-pane">
        <div className="toolbar">
          <input
            placeholder="Search functions or workers"
            value={search}
            data-testid="function-search"
            onChange={(e) => setSearch(e.target.value)}
          />
          <select value={worker} onChange={(e) => setWorker(e.target.value)} data-testid="function-worker">
            <option value="">all workers</option>
            {workers.map((w) => (
              <option key={w}>{w}</option>
            ))}
          </select>
          <label className="check">
            <input type="checkbox" checked={internal} onChange={(e) => setInternal(e.target.checked)} /> internal
          </label>
        </div>
        {list.error !== undefined && <ErrorBox error={list.error} what="functions" />}
        <table className="table" data-testid="functions-table">
          <thead>
            <tr>
              <th>Function</th>
              <th>Worker</th>
              <th>Replicas</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((f) => (
              <tr
                key={f.function_id}
                className={f.function_id === selected ? 'selected' : ''}
                onClick={() => navigate(`/functions/${enc(f.function_id)}`)}
                data-testid={`function-row-${f.function_id}`}
              >
                <td className="mono">{f.function_id}</td>
                <td>{f.worker_name}</td>
                <td>{f.replicas ?? 1}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {!list.loading && shown.length === 0 && <div className="empty">No functions match.</div>}
      </section>
      <section className="detail-pane">
        {selected ? (
          <FunctionPanel key={selected} functionId={selected} />
        ) : (
          <div className="empty">Select a function.</div>
        )}
      </section>
    </div>
  );
}

function FunctionPanel({ functionId }: { functionId: string }) {
  const detail = useLoad(() => api<FunctionDetail>('GET', `functions/${enc(functionId)}`), [functionId]);
  const [payload, setPayload] = useState('{}');
  const [edited, setEdited] = useState(false);
  const schema = detail.data?.request_schema;
  useEffect(() => {
    if (!edited && schema !== undefined) setPayload(initialPayload(schema));
  }, [schema, edited]);
  const [timeoutMs, setTimeoutMs] = useState('30000');
  const [answer, setAnswer] = useState<InvokeAnswer>();
  const [failure, setFailure] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const parsed = parseJson(payload);
  const invoke = async (): Promise<void> => {
    setBusy(true);
    setFailure(undefined);
    try {
      const timeout_ms = Number(timeoutMs) > 0 ? Number(timeoutMs) : 30000;
      setAnswer(
        await api<InvokeAnswer>('POST', 'invoke', { function_id: functionId, payload: parsed.value, timeout_ms }),
      );
    } catch (err) {
      setAnswer(undefined);
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="panel">
      <h2 className="mono" data-testid="function-title">
        {functionId}
      </h2>
      {detail.error !== undefined && <ErrorBox error={detail.error} what="function detail" />}
      {detail.data && (
        <div className="meta">
          <span>worker {detail.data.worker_name}</span>
          {detail.data.description && <span>{detail.data.description}</span>}
          {(detail.data.registered_triggers ?? []).map((t) => (
            <span key={t.id} className="tag">
              {t.trigger_type} {JSON.stringify(t.config)}
            </span>
          ))}
        </div>
      )}
      <JsonEditor
        label="Payload (JSON)"
        value={payload}
        onChange={(text) => (setEdited(true), setPayload(text))}
        testId="invoke-payload"
      />
      <div className="row">
        <button
          className="primary"
          disabled={busy || parsed.error !== undefined}
          onClick={() => void invoke()}
          data-testid="invoke-button"
        >
          {busy ? 'Invoking…' : 'Invoke'}
        </button>
        <span className="muted small">timeout</span>
        <input
          style={{ width: 90 }}
          value={timeoutMs}
          onChange={(e) => setTimeoutMs(e.target.value.replace(/[^0-9]/g, ''))}
          data-testid="invoke-timeout"
        />
        <span className="muted small">ms</span>
      </div>
      {failure !== undefined && <ErrorBox error={failure} what="invoke" />}
      {answer && <InvokeResult answer={answer} />}
      {detail.data?.request_schema !== undefined && (
        <details>
          <summary>Request schema</summary>
          <JsonView value={detail.data.request_schema} />
        </details>
      )}
    </div>
  );
}

function InvokeResult({ answer }: { answer: InvokeAnswer }) {
  return (
    <div className={`result ${answer.ok ? 'ok' : 'failed'}`} data-testid="invoke-result">
      <div className="result-head">
        <span className={`badge ${answer.ok ? 'green' : 'red'}`} data-testid="invoke-status">
          {answer.ok ? 'success' : 'error'}
        </span>
        {answer.error && (
          <span className="code" data-testid="invoke-error-code">
            {answer.error.code}
          </span>
        )}
        <span data-testid="invoke-duration">{answer.duration_ms} ms</span>
        {answer.trace_id && (
          <Link to={`/traces/${answer.trace_id}`} testId="invoke-trace-link">
            trace {answer.trace_id.slice(0, 12)}…
          </Link>
        )}
      </div>
      {answer.ok ? (
        <JsonView value={answer.result} testId="invoke-output" />
      ) : (
        <>
          <div className="error-message" data-testid="invoke-output">
            {answer.error?.message}
          </div>
          {answer.error?.stacktrace && <pre className="stack">{answer.error.stacktrace}</pre>}
        </>
      )}
    </div>
  );
}
