import { fmtMs, type Span } from './model';

/** One row per span, indented by depth, with a bar placed on the trace's time axis. */
export function Waterfall(props: { spans: Span[]; selected?: string; onSelect(span: Span): void }) {
  const start = Math.min(...props.spans.map((s) => s.start));
  const total = Math.max(1e-6, Math.max(...props.spans.map((s) => s.end)) - start);
  return (
    <div className="waterfall" data-testid="waterfall">
      <div className="wf-row wf-axis">
        <div className="wf-label" />
        <div className="wf-track">
          {[0, 0.25, 0.5, 0.75, 1].map((f) => (
            <span key={f} style={{ left: `${f * 100}%`, transform: `translateX(-${f * 100}%)` }}>
              {fmtMs(total * f)}
            </span>
          ))}
        </div>
      </div>
      {props.spans.map((s) => (
        <div
          key={s.spanId}
          className={`wf-row ${s.spanId === props.selected ? 'selected' : ''}`}
          onClick={() => props.onSelect(s)}
          data-testid="waterfall-row"
        >
          <div className="wf-label" style={{ paddingLeft: 8 + s.depth * 14 }} title={s.name}>
            <span className={`dot ${s.status}`} />
            <span className="svc">{s.service}</span> {s.name}
          </div>
          <div className="wf-track">
            <div
              className={`wf-bar ${s.status}`}
              style={{
                left: `${((s.start - start) / total) * 100}%`,
                width: `max(2px, ${(s.duration / total) * 100}%)`,
              }}
            />
            <span className="wf-dur">{fmtMs(s.duration)}</span>
          </div>
        </div>
      ))}
    </div>
  );
}
