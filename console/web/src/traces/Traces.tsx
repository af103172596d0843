import { useMemo, useState } from 'react';
import { api, ApiError } from '../api';
import { textOf } from '../text';
import { ErrorBox, ObservabilityOff } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { useLive } from '../live';
import { navigate } from '../router';
import { fmtMs, spansFrom, summariseTraces, type Span } from './model';
import { TraceView } from './TraceView';

interface Filters {
  service: string;
  name: string;
  status: '' | 'ok' | 'error';
  minMs: string;
  maxMs: string;
  window: string;
  attribute: string;
}

const EMPTY: Filters = { service: '', name: '', status: '', minMs: '', maxMs: '', window: '', attribute: '' };
const WINDOWS: Record<string, number> = { '15m': 15 * 60e3, '1h': 3600e3, '24h': 86400e3 };

export function TracesPage({ traceId }: { traceId: string }) {
  if (traceId) return <TraceView traceId={traceId} />;
  return <TraceList />;
}

function query(f: Filters): Record<string, unknown> {
  const q: Record<string, unknown> = { limit: 1000 };
  if (f.service) q.service_name = f.service;
  if (f.name) q.name = f.name;
  if (f.status) q.status = f.status;
  if (f.minMs) q.min_duration_ms = Number(f.minMs);
  if (f.maxMs) q.max_duration_ms = Number(f.maxMs);
  const window = WINDOWS[f.window];
  if (window) q.start_time = (Date.now() - window) * 1e6;
  const [k, ...v] = f.attribute.split('=');
  if (k && v.length > 0) q.attributes = [[k.trim(), v.join('=').trim()]];
  return q;
}

/** The same filters, applied to what came back (an older observability worker may ignore some of them). */
function matches(s: Span, f: Filters): boolean {
  if (f.service && !s.service.includes(f.service)) return false;
  if (f.name && !s.name.includes(f.name)) return false;
  const window = WINDOWS[f.window];
  if (window && s.start < Date.now() - window) return false;
  const [k, ...v] = f.attribute.split('=');
  if (k && v.length > 0 && textOf(s.attributes[k.trim()] ?? '') !== v.join('=').trim()) return false;
  return true;
}

function TraceList() {
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const list = useLoad(() => api('POST', 'otel/traces', query(filters)), [filters]);
  const live = useLive(['traces'], () => list.reload());
  const traces = useMemo(() => {
    const spans = list.data === undefined ? [] : spansFrom(list.data).filter((s) => matches(s, filters));
    return summariseTraces(spans).filter(
      (t) =>
        (!filters.status || (filters.status === 'error' ? t.errors > 0 : t.errors === 0)) &&
        (!filters.minMs || t.duration >= Number(filters.minMs)) &&
        (!filters.maxMs || t.duration <= Number(filters.maxMs)),
    );
  }, [list.data, filters]);
  const off = list.error instanceof ApiError && list.error.notRegistered;
  const field = (key: keyof Filters, placeholder: string, width = 140) => (
    <input
      placeholder={placeholder}
      style={{ width }}
      value={draft[key]}
      onChange={(e) => setDraft({ ...draft, [key]: e.target.value })}
      data-testid={`trace-filter-${key}`}
    />
  );
  return (
    <div>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilters(draft);
        }}
      >
        {field('service', 'service')}
        {field('name', 'span name')}
        <select
          value={draft.status}
          onChange={(e) => setDraft({ ...draft, status: e.target.value as Filters['status'] })}
        >
          <option value="">any status</option>
          <option value="ok">ok</option>
          <option value="error">error</option>
        </select>
        {field('minMs', 'min ms', 70)}
        {field('maxMs', 'max ms', 70)}
        <select value={draft.window} onChange={(e) => setDraft({ ...draft, window: e.target.value })}>
          <option value="">any time</option>
          <option value="15m">last 15 min</option>
          <option value="1h">last hour</option>
          <option value="24h">last 24 h</option>
        </select>
        {field('attribute', 'attribute key=value', 180)}
        <button className="primary" type="submit">
          Filter
        </button>
        <button type="button" onClick={() => (setDraft(EMPTY), setFilters(EMPTY))}>
          Clear
        </button>
        <span className={`badge ${live ? 'green' : 'grey'}`}>{live ? 'live' : 'offline'}</span>
      </form>
      {off ? <ObservabilityOff /> : list.error !== undefined && <ErrorBox error={list.error} what="traces" />}
      <table className="table" data-testid="traces-table">
        <thead>
          <tr>
            <th>Trace</th>
            <th>Root span</th>
            <th>Services</th>
            <th>Spans</th>
            <th>Duration</th>
            <th>Status</th>
            <th>Started</th>
          </tr>
        </thead>
        <tbody>
          {traces.map((t) => (
            <tr key={t.traceId} onClick={() => navigate(`/traces/${t.traceId}`)} data-testid={`trace-row-${t.traceId}`}>
              <td className="mono small">{t.traceId.slice(0, 16)}</td>
              <td>{t.root.name}</td>
              <td>{t.services.join(', ')}</td>
              <td>{t.spans}</td>
              <td>{fmtMs(t.duration)}</td>
              <td>
                <span className={`badge ${t.errors ? 'red' : 'green'}`}>{t.errors ? `${t.errors} errors` : 'ok'}</span>
              </td>
              <td>{new Date(t.start).toLocaleTimeString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!off && !list.loading && traces.length === 0 && <div className="empty">No traces match.</div>}
    </div>
  );
}
