import { useState } from 'react';
import { api } from '../api';
import { textOf } from '../text';
import { useLoad } from '../components/hooks';
import { JsonView } from '../components/JsonEditor';
import { fmtMs, type Span } from './model';

const TABS = ['Info', 'Attributes', 'Events & logs', 'Errors', 'Baggage'] as const;
type Tab = (typeof TABS)[number];

interface LogRecord {
  timestamp_unix_nano?: number | string;
  severity_text?: string;
  body?: unknown;
}

export function SpanDetail({ span }: { span: Span }) {
  const [tab, setTab] = useState<Tab>('Info');
  return (
    <aside className="span-detail" data-testid="span-detail">
      <h3>{span.name}</h3>
      <div className="tabs small">
        {TABS.map((t) => (
          <button key={t} className={t === tab ? 'active' : ''} onClick={() => setTab(t)}>
            {t}
          </button>
        ))}
      </div>
      {tab === 'Info' && <Info span={span} />}
      {tab === 'Attributes' && <KeyValues values={span.attributes} />}
      {tab === 'Events & logs' && <EventsAndLogs span={span} />}
      {tab === 'Errors' && <Errors span={span} />}
      {tab === 'Baggage' && <KeyValues values={baggageOf(span)} empty="No baggage on this span." />}
    </aside>
  );
}

function Info({ span }: { span: Span }) {
  return (
    <dl className="facts">
      <dt>Service</dt>
      <dd>{span.service}</dd>
      <dt>Duration</dt>
      <dd>{fmtMs(span.duration)}</dd>
      <dt>Status</dt>
      <dd>
        <span className={`badge ${span.status === 'error' ? 'red' : span.status === 'ok' ? 'green' : 'grey'}`}>
          {span.status}
        </span>
      </dd>
      <dt>Start</dt>
      <dd>{new Date(span.start).toISOString()}</dd>
      <dt>Kind</dt>
      <dd>{span.kind || '—'}</dd>
      <dt>Trace id</dt>
      <dd className="mono small">{span.traceId}</dd>
      <dt>Span id</dt>
      <dd className="mono small">{span.spanId}</dd>
      <dt>Parent</dt>
      <dd className="mono small">{span.parentSpanId ?? '—'}</dd>
    </dl>
  );
}

function KeyValues({ values, empty }: { values: Record<string, unknown>; empty?: string }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <div className="empty">{empty ?? 'No attributes.'}</div>;
  return (
    <table className="table small">
      <tbody>
        {entries.map(([k, v]) => (
          <tr key={k}>
            <td className="mono">{k}</td>
            <td className="mono">{typeof v === 'string' ? v : JSON.stringify(v)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function EventsAndLogs({ span }: { span: Span }) {
  const logs = useLoad(
    () => api<{ logs: LogRecord[] }>('POST', 'otel/logs', { trace_id: span.traceId, span_id: span.spanId, limit: 100 }),
    [span.spanId],
  );
  return (
    <div>
      <h4>Span events ({span.events.length})</h4>
      {span.events.map((e, i) => (
        <div key={i} className="card small">
          <strong>{e.name}</strong> <span className="muted">{new Date(e.time).toISOString()}</span>
          <KeyValues values={e.attributes} empty=" " />
        </div>
      ))}
      <h4>Logs</h4>
      {logs.error !== undefined && <div className="muted">logs unavailable</div>}
      {(logs.data?.logs ?? []).map((l, i) => (
        <div key={i} className="log-line">
          <span className="badge grey">{l.severity_text ?? ''}</span>{' '}
          {typeof l.body === 'string' ? l.body : JSON.stringify(l.body)}
        </div>
      ))}
      {logs.data?.logs.length === 0 && <div className="empty">No logs for this span.</div>}
    </div>
  );
}

function Errors({ span }: { span: Span }) {
  const exceptions = span.events.filter((e) => e.name === 'exception');
  if (span.status !== 'error' && exceptions.length === 0) return <div className="empty">No errors.</div>;
  return (
    <div>
      {span.statusMessage && <div className="error-message">{span.statusMessage}</div>}
      {exceptions.map((e, i) => (
        <div key={i} className="card">
          <div className="error-message">
            {textOf(e.attributes['exception.type'] ?? 'exception')}: {textOf(e.attributes['exception.message'] ?? '')}
          </div>
          {e.attributes['exception.stacktrace'] !== undefined && (
            <pre className="stack">{textOf(e.attributes['exception.stacktrace'])}</pre>
          )}
        </div>
      ))}
      {span.attributes['error.code'] !== undefined && <JsonView value={{ code: span.attributes['error.code'] }} />}
    </div>
  );
}

function baggageOf(span: Span): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(span.attributes)) if (k.startsWith('baggage.')) out[k.slice(8)] = v;
  const header = span.attributes['baggage'];
  if (typeof header === 'string') {
    for (const part of header.split(',')) {
      const [k, v] = part.split('=');
      if (k) out[k.trim()] = decodeURIComponent((v ?? '').trim());
    }
  }
  return out;
}
