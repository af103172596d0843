import { useState } from 'react';
import { api } from '../api';
import { ErrorBox } from '../components/ErrorBox';
import { useInterval, useLoad } from '../components/hooks';
import { useLive } from '../live';

interface Worker {
  id: string;
  name: string;
  description?: string;
  version?: string;
  runtime: string;
  os?: string;
  status: string;
  function_count: number;
  active_invocations: number;
  connected_at_ms: number;
  isolation?: string;
  ip_address?: string;
  pid?: number | null;
  functions?: string[];
}

/** The capability workers a default engine runs, and what each provides. */
const CAPABILITIES: { name: string; provides: string }[] = [
  { name: 'svc-http', provides: 'http triggers (REST port)' },
  { name: 'svc-state', provides: 'state::*' },
  { name: 'svc-queue', provides: 'queues, dead letters' },
  { name: 'svc-cron', provides: 'cron triggers' },
  { name: 'svc-stream', provides: 'stream::*, live updates' },
];

export function WorkersPage() {
  const list = useLoad(() => api<{ workers: Worker[] }>('GET', 'workers'), []);
  const live = useLive(['topology'], () => list.reload());
  useInterval(() => list.reload(), live ? 5000 : 2000);
  const [selected, setSelected] = useState<string>();
  const workers = list.data?.workers ?? [];
  const current = workers.find((w) => w.id === selected);
  return (
    <div>
      <div className="cards" data-testid="capabilities">
        {CAPABILITIES.map((c) => {
          const replicas = workers.filter((w) => w.name === c.name || w.name.startsWith(`${c.name}:`)).length;
          return (
            <div className={`cap ${replicas > 0 ? 'up' : 'down'}`} key={c.name} data-testid={`capability-${c.name}`}>
              <div className="cap-name">{c.name}</div>
              <div className="muted small">{c.provides}</div>
              <span className={`badge ${replicas > 0 ? 'green' : 'grey'}`}>
                {replicas > 0 ? `running ×${replicas}` : 'not connected'}
              </span>
            </div>
          );
        })}
      </div>
      {list.error !== undefined && <ErrorBox error={list.error} what="workers" />}
      <table className="table" data-testid="workers-table">
        <thead>
          <tr>
            <th>Name</th>
            <th>Runtime</th>
            <th>PID</th>
            <th>Status</th>
            <th>Functions</th>
            <th>In flight</th>
            <th>Connected</th>
          </tr>
        </thead>
        <tbody>
          {workers.map((w) => (
            <tr
              key={w.id}
              onClick={() => setSelected(w.id)}
              className={w.id === selected ? 'selected' : ''}
              data-testid={`worker-row-${w.name}`}
            >
              <td>{w.name}</td>
              <td>{w.runtime}</td>
              <td className="mono">{w.pid ?? '—'}</td>
              <td>
                <span className={`badge ${w.status === 'busy' ? 'amber' : 'green'}`}>{w.status}</span>
              </td>
              <td>{w.function_count}</td>
              <td>{w.active_invocations}</td>
              <td>{new Date(w.connected_at_ms).toLocaleTimeString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {current && (
        <div className="panel card" data-testid="worker-detail">
          <h3>
            {current.name} <span className="muted mono small">{current.id}</span>
          </h3>
          <div className="meta">
            {current.version && <span>version {current.version}</span>}
            {current.os && <span>{current.os}</span>}
            {current.ip_address && <span>{current.ip_address}</span>}
            {current.isolation && <span>{current.isolation}</span>}
          </div>
          <div className="chips">
            {(current.functions ?? []).map((f) => (
              <span className="tag mono" key={f}>
                {f}
              </span>
            ))}
          </div>
        </div>
      )}
    </div>
  );
}
