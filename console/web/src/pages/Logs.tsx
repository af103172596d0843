import { useState } from 'react';
import { api, ApiError } from '../api';
import { ErrorBox, ObservabilityOff } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { Link } from '../router';
import { attributesOf } from '../traces/model';

interface LogRecord {
  timestamp_unix_nano?: number | string;
  timestamp?: number | string;
  severity_number?: number;
  severity_text?: string;
  body?: unknown;
  service_name?: string;
  trace_id?: string;
  span_id?: string;
  attributes?: unknown;
}

const SEVERITIES: Record<string, number> = { '': 0, debug: 5, info: 9, warn: 13, error: 17 };

function timeOf(l: LogRecord): Date {
  const n = Number(l.timestamp_unix_nano ?? l.timestamp ?? 0);
  return new Date(n > 1e14 ? n / 1e6 : n);
}

export function LogsPage() {
  const [severity, setSeverity] = useState('');
  const [text, setText] = useState('');
  const [service, setService] = useState('');
  const [traceId, setTraceId] = useState('');
  const logs = useLoad(() => {
    const q: Record<string, unknown> = { limit: 500 };
    if (SEVERITIES[severity]) q.severity_min = SEVERITIES[severity];
    if (traceId) q.trace_id = traceId;
    if (service) q.service_name = service;
    return api<{ logs: LogRecord[] }>('POST', 'otel/logs', q);
  }, [severity, traceId, service]);
  const off = logs.error instanceof ApiError && logs.error.notRegistered;
  const shown = (logs.data?.logs ?? []).filter(
    (l) =>
      !text ||
      JSON.stringify(l.body ?? '')
        .toLowerCase()
        .includes(text.toLowerCase()),
  );
  return (
    <div>
      <div className="filters">
        <select value={severity} onChange={(e) => setSeverity(e.target.value)} data-testid="log-severity">
          <option value="">all levels</option>
          <option value="debug">debug+</option>
          <option value="info">info+</option>
          <option value="warn">warn+</option>
          <option value="error">error</option>
        </select>
        <input placeholder="search text" value={text} onChange={(e) => setText(e.target.value)} />
        <input placeholder="service" value={service} onChange={(e) => setService(e.target.value)} />
        <input placeholder="trace id" value={traceId} onChange={(e) => setTraceId(e.target.value)} />
        <button onClick={logs.reload}>Refresh</button>
      </div>
      {off ? <ObservabilityOff /> : logs.error !== undefined && <ErrorBox error={logs.error} what="logs" />}
      <table className="table" data-testid="logs-table">
        <thead>
          <tr>
            <th>Time</th>
            <th>Level</th>
            <th>Service</th>
            <th>Message</th>
            <th>Trace</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((l, i) => (
            <tr key={i}>
              <td className="small">{timeOf(l).toLocaleTimeString()}</td>
              <td>
                <span
                  className={`badge ${(l.severity_number ?? 0) >= 17 ? 'red' : (l.severity_number ?? 0) >= 13 ? 'amber' : 'grey'}`}
                >
                  {l.severity_text ?? ''}
                </span>
              </td>
              <td>{l.service_name ?? ''}</td>
              <td title={JSON.stringify(attributesOf(l.attributes))}>
                {typeof l.body === 'string' ? l.body : JSON.stringify(l.body)}
              </td>
              <td>{l.trace_id ? <Link to={`/traces/${l.trace_id}`}>{l.trace_id.slice(0, 12)}…</Link> : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!off && !logs.loading && shown.length === 0 && <div className="empty">No logs match.</div>}
    </div>
  );
}
