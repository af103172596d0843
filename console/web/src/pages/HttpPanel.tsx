import { useState } from 'react';
import { textOf } from '../text';
import { JsonEditor, JsonView, parseJson } from '../components/JsonEditor';
import { ErrorBox } from '../components/ErrorBox';
import type { RegisteredTrigger } from './trigger-model';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

interface HttpAnswer {
  status: number;
  headers: [string, string][];
  body: string;
  ms: number;
}

/** Sends a request to an http trigger through the console's proxy to the engine's REST port. */
export function HttpPanel({ trigger }: { trigger: RegisteredTrigger }) {
  const configured = textOf(trigger.config.http_method ?? 'GET').toUpperCase();
  const [method, setMethod] = useState(METHODS.includes(configured as never) ? configured : 'GET');
  const [path, setPath] = useState(`/${textOf(trigger.config.api_path ?? '').replace(/^\//, '')}`);
  const [query, setQuery] = useState<{ key: string; value: string }[]>([{ key: '', value: '' }]);
  const [body, setBody] = useState('{}');
  const [answer, setAnswer] = useState<HttpAnswer>();
  const [failure, setFailure] = useState<unknown>();
  const hasBody = WITH_BODY.has(method);
  const parsed = parseJson(body);
  const send = async (): Promise<void> => {
    setFailure(undefined);
    const params = new URLSearchParams();
    for (const row of query) if (row.key !== '') params.append(row.key, row.value);
    const qs = params.toString();
    const started = performance.now();
    try {
      const res = await fetch(`/api/engine/${path.replace(/^\//, '')}${qs ? `?${qs}` : ''}`, {
        method,
        ...(hasBody ? { headers: { 'content-type': 'application/json' }, body } : {}),
      });
      const text = await res.text();
      setAnswer({
        status: res.status,
        headers: [...res.headers.entries()],
        body: text,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      setAnswer(undefined);
      setFailure(err);
    }
  };
  const setRow = (i: number, field: 'key' | 'value', value: string): void =>
    setQuery((rows) => rows.map((r, j) => (j === i ? { ...r, [field]: value } : r)));
  return (
    <div className="panel">
      <h2>
        HTTP → <span className="mono">{trigger.function_id}</span>
      </h2>
      <div className="row">
        <select value={method} onChange={(e) => setMethod(e.target.value)} data-testid="http-method">
          {METHODS.map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <input className="grow mono" value={path} onChange={(e) => setPath(e.target.value)} data-testid="http-path" />
        <button
          className="primary"
          onClick={() => void send()}
          disabled={hasBody && parsed.error !== undefined}
          data-testid="http-send"
        >
          Send
        </button>
      </div>
      <label>Query parameters</label>
      {query.map((row, i) => (
        <div className="row" key={i}>
          <input
            placeholder="key"
            value={row.key}
            onChange={(e) => setRow(i, 'key', e.target.value)}
            data-testid={`query-key-${i}`}
          />
          <input
            placeholder="value"
            value={row.value}
            onChange={(e) => setRow(i, 'value', e.target.value)}
            data-testid={`query-value-${i}`}
          />
          <button onClick={() => setQuery((rows) => rows.filter((_, j) => j !== i))} title="Remove">
            ✕
          </button>
        </div>
      ))}
      <button onClick={() => setQuery((rows) => [...rows, { key: '', value: '' }])} data-testid="query-add">
        + parameter
      </button>
      {hasBody && <JsonEditor label="Body (JSON)" value={body} onChange={setBody} testId="http-body" rows={6} />}
      {failure !== undefined && <ErrorBox error={failure} what="send" />}
      {answer && <HttpResult answer={answer} />}
    </div>
  );
}

function HttpResult({ answer }: { answer: HttpAnswer }) {
  let body: unknown = answer.body;
  try {
    body = JSON.parse(answer.body);
  } catch {
    // not JSON: shown as text
  }
  return (
    <div className={`result ${answer.status < 400 ? 'ok' : 'failed'}`} data-testid="http-result">
      <div className="result-head">
        <span className={`badge ${answer.status < 400 ? 'green' : 'red'}`} data-testid="http-status">
          {answer.status}
        </span>
        <span>{answer.ms} ms</span>
      </div>
      <details>
        <summary>Headers ({answer.headers.length})</summary>
        <table className="table small" data-testid="http-headers">
          <tbody>
            {answer.headers.map(([k, v]) => (
              <tr key={k}>
                <td className="mono">{k}</td>
                <td className="mono">{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
      {typeof body === 'string' ? (
        <pre className="json-view" data-testid="http-body-out">
          {body}
        </pre>
      ) : (
        <JsonView value={body} testId="http-body-out" />
      )}
    </div>
  );
}
