import { useState } from 'react';
import { api } from '../api';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { JsonView } from '../components/JsonEditor';
import { useStreamGroup, type StreamFrame } from '../live';

interface StreamInfo {
  id: string;
  groups: string[];
}

export function StreamsPage() {
  const streams = useLoad(() => api<{ stream: StreamInfo[]; count: number }>('GET', 'streams/list'), []);
  const [picked, setPicked] = useState<{ stream: string; group: string }>();
  const visible = (streams.data?.stream ?? []).filter((s) => !s.id.startsWith('svc:console'));
  return (
    <div className="split three">
      <section className="list-pane narrow">
        <div className="toolbar">
          <strong>Streams</strong>
          <button onClick={streams.reload}>Refresh</button>
        </div>
        {streams.error !== undefined && <ErrorBox error={streams.error} what="streams" />}
        <ul className="nav-list" data-testid="streams-list">
          {visible.map((s) => (
            <li key={s.id} className="group-head">
              <div className="mono">{s.id}</div>
              <ul>
                {s.groups.map((g) => (
                  <li
                    key={g}
                    className={picked?.stream === s.id && picked.group === g ? 'selected' : ''}
                    onClick={() => setPicked({ stream: s.id, group: g })}
                    data-testid={`stream-group-${s.id}-${g}`}
                  >
                    {g}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
        {streams.data && visible.length === 0 && <div className="empty">No streams yet.</div>}
      </section>
      <section className="detail-pane wide">
        {picked ? (
          <GroupItems key={`${picked.stream}/${picked.group}`} {...picked} />
        ) : (
          <div className="empty">Select a group.</div>
        )}
      </section>
    </div>
  );
}

function GroupItems({ stream, group }: { stream: string; group: string }) {
  const items = useLoad(
    () => api<{ items: unknown[] }>('POST', 'streams/group', { stream_name: stream, group_id: group }),
    [],
  );
  const [events, setEvents] = useState<{ at: string; type: string; id: string | null }[]>([]);
  const live = useStreamGroup(stream, group, (frame: StreamFrame) => {
    // The join's answer: items changed between the first load and the subscription are read again.
    if (frame.event.type === 'sync') {
      items.reload();
      return;
    }
    const type = frame.event.type === 'event' ? `event:${frame.event.event?.type ?? ''}` : frame.event.type;
    setEvents((list) => [{ at: new Date().toLocaleTimeString(), type, id: frame.id }, ...list].slice(0, 20));
    items.reload();
  });
  return (
    <div>
      <h2>
        <span className="mono">
          {stream} / {group}
        </span>{' '}
        <span className={`badge ${live ? 'green' : 'grey'}`} data-testid="stream-live">
          {live ? 'live' : 'offline'}
        </span>
      </h2>
      {items.error !== undefined && <ErrorBox error={items.error} what="items" />}
      <div className="muted">{items.data?.items.length ?? 0} items</div>
      <div data-testid="stream-items">
        {(items.data?.items ?? []).map((item, i) => (
          <JsonView key={i} value={item} />
        ))}
      </div>
      <h3>Live events</h3>
      <table className="table small" data-testid="stream-events">
        <tbody>
          {events.map((e, i) => (
            <tr key={i}>
              <td>{e.at}</td>
              <td>{e.type}</td>
              <td className="mono">{e.id ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
