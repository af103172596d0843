import { useState } from 'react';
import { api, ApiError } from '../api';
import { ErrorBox, ObservabilityOff } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { Link } from '../router';
import { FlameGraph } from './FlameGraph';
import { fmtMs, spansFrom, type Span } from './model';
import { ServiceBreakdown } from './ServiceBreakdown';
import { SpanDetail } from './SpanDetail';
import { SpanFlow, TraceMap } from './TraceGraphs';
import { Waterfall } from './Waterfall';

const VIEWS = ['Waterfall', 'Flame Graph', 'Service Breakdown', 'Trace Map', 'Flow'] as const;
type View = (typeof VIEWS)[number];

/** The spans of a trace: the tree when the worker has it, else the flat list filtered by trace id. */
async function loadSpans(traceId: string): Promise<Span[]> {
  try {
    return spansFrom(await api('POST', 'otel/traces/tree', { trace_id: traceId }));
  } catch (err) {
    if (err instanceof ApiError && err.notRegistered) throw err;
    return spansFrom(await api('POST', 'otel/traces', { trace_id: traceId, limit: 1000 }));
  }
}

export function TraceView({ traceId }: { traceId: string }) {
  const trace = useLoad(() => loadSpans(traceId), [traceId]);
  const [view, setView] = useState<View>('Waterfall');
  const [selected, setSelected] = useState<Span>();
  const spans = trace.data ?? [];
  const off = trace.error instanceof ApiError && trace.error.notRegistered;
  const duration = spans.length ? Math.max(...spans.map((s) => s.end)) - Math.min(...spans.map((s) => s.start)) : 0;
  return (
    <div>
      <div className="toolbar">
        <Link to="/traces">← Traces</Link>
        <h2 className="mono">trace {traceId}</h2>
        <span data-testid="trace-span-count">{spans.length} spans</span>
        <span>{fmtMs(duration)}</span>
        <button onClick={trace.reload}>Refresh</button>
      </div>
      {off ? <ObservabilityOff /> : trace.error !== undefined && <ErrorBox error={trace.error} what="trace" />}
      {!trace.loading && !off && spans.length === 0 && (
        <div className="empty">No spans stored for this trace (yet). Spans arrive a moment after the call ends.</div>
      )}
      {spans.length > 0 && (
        <>
          <div className="tabs">
            {VIEWS.map((v) => (
              <button
                key={v}
                className={v === view ? 'active' : ''}
                onClick={() => setView(v)}
                data-testid={`trace-view-${v}`}
              >
                {v}
              </button>
            ))}
          </div>
          <div className="trace-body">
            <div className="trace-main">
              {view === 'Waterfall' && <Waterfall spans={spans} selected={selected?.spanId} onSelect={setSelected} />}
              {view === 'Flame Graph' && (
                <FlameGraph spans={spans} selected={selected?.spanId} onSelect={setSelected} />
              )}
              {view === 'Service Breakdown' && <ServiceBreakdown spans={spans} />}
              {view === 'Trace Map' && <TraceMap spans={spans} />}
              {view === 'Flow' && <SpanFlow spans={spans} onSelect={setSelected} />}
            </div>
            {selected && <SpanDetail span={selected} />}
          </div>
        </>
      )}
    </div>
  );
}
