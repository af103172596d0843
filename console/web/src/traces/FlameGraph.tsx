import { fmtMs, type Span } from './model';

const COLORS = ['#5b8def', '#43b581', '#e8a33d', '#b56cf0', '#e05d7a', '#3fb7c4', '#8a9a5b'];

/** Spans stacked by depth: width is duration, position is start time; colour per service. */
export function FlameGraph(props: { spans: Span[]; selected?: string; onSelect(span: Span): void }) {
  const start = Math.min(...props.spans.map((s) => s.start));
  const total = Math.max(1e-6, Math.max(...props.spans.map((s) => s.end)) - start);
  const services = [...new Set(props.spans.map((s) => s.service))];
  const depth = Math.max(...props.spans.map((s) => s.depth)) + 1;
  return (
    <div className="flame" style={{ height: depth * 26 + 8 }} data-testid="flame-graph">
      {props.spans.map((s) => (
        <div
          key={s.spanId}
          className={`flame-block ${s.spanId === props.selected ? 'selected' : ''} ${s.status}`}
          title={`${s.service} ${s.name} ${fmtMs(s.duration)}`}
          onClick={() => props.onSelect(s)}
          style={{
            left: `${((s.start - start) / total) * 100}%`,
            width: `max(3px, ${(s.duration / total) * 100}%)`,
            top: s.depth * 26,
            background: COLORS[services.indexOf(s.service) % COLORS.length],
          }}
        >
          {s.name}
        </div>
      ))}
    </div>
  );
}
