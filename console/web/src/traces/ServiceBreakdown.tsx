import { fmtMs, type Span } from './model';

/** Per service: span count, errors, total and self time, with a bar of its share of the trace. */
export function ServiceBreakdown({ spans }: { spans: Span[] }) {
  const childTime = new Map<string, number>();
  for (const s of spans) {
    if (s.parentSpanId) childTime.set(s.parentSpanId, (childTime.get(s.parentSpanId) ?? 0) + s.duration);
  }
  const rows = new Map<string, { spans: number; errors: number; total: number; self: number }>();
  for (const s of spans) {
    const row = rows.get(s.service) ?? { spans: 0, errors: 0, total: 0, self: 0 };
    row.spans += 1;
    row.errors += s.status === 'error' ? 1 : 0;
    row.total += s.duration;
    row.self += Math.max(0, s.duration - (childTime.get(s.spanId) ?? 0));
    rows.set(s.service, row);
  }
  const selfSum = Math.max(
    1e-6,
    [...rows.values()].reduce((a, r) => a + r.self, 0),
  );
  return (
    <table className="table" data-testid="service-breakdown">
      <thead>
        <tr>
          <th>Service</th>
          <th>Spans</th>
          <th>Errors</th>
          <th>Total time</th>
          <th>Self time</th>
          <th>Share of self time</th>
        </tr>
      </thead>
      <tbody>
        {[...rows.entries()]
          .sort((a, b) => b[1].self - a[1].self)
          .map(([service, r]) => (
            <tr key={service}>
              <td>{service}</td>
              <td>{r.spans}</td>
              <td className={r.errors > 0 ? 'red-text' : ''}>{r.errors}</td>
              <td>{fmtMs(r.total)}</td>
              <td>{fmtMs(r.self)}</td>
              <td>
                <div className="share">
                  <div style={{ width: `${(r.self / selfSum) * 100}%` }} />
                  <span>{((r.self / selfSum) * 100).toFixed(1)}%</span>
                </div>
              </td>
            </tr>
          ))}
      </tbody>
    </table>
  );
}
