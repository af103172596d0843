import { useState } from 'react';
import { api } from '../api';
import { textOf } from '../text';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { JsonView } from '../components/JsonEditor';
import { useLive } from '../live';
import { CronPanel, EventPanel } from './TriggerPanels';
import { HttpPanel } from './HttpPanel';
import type { RegisteredTrigger } from './trigger-model';

const TABS = ['http', 'cron', 'event', 'other'] as const;
type Tab = (typeof TABS)[number];
const TAB_LABEL: Record<Tab, string> = { http: 'HTTP', cron: 'Cron', event: 'Event', other: 'Other types' };

function tabOf(t: RegisteredTrigger): Tab {
  if (t.trigger_type === 'http') return 'http';
  if (t.trigger_type === 'cron') return 'cron';
  if (t.trigger_type === 'subscribe') return 'event';
  return 'other';
}

export function TriggersPage() {
  const [tab, setTab] = useState<Tab>('http');
  const [selected, setSelected] = useState<string>();
  const list = useLoad(() => api<{ registered_triggers: RegisteredTrigger[] }>('GET', 'triggers'), []);
  useLive(['topology'], () => list.reload());
  const triggers = (list.data?.registered_triggers ?? []).filter((t) => !t.function_id.startsWith('engine::console::'));
  const shown = triggers.filter((t) => tabOf(t) === tab);
  const current = shown.find((t) => t.id === selected) ?? shown[0];
  return (
    <div>
      <div className="tabs">
        {TABS.map((t) => (
          <button key={t} className={t === tab ? 'active' : ''} onClick={() => setTab(t)} data-testid={`tab-${t}`}>
            {TAB_LABEL[t]} ({triggers.filter((x) => tabOf(x) === t).length})
          </button>
        ))}
      </div>
      {list.error !== undefined && <ErrorBox error={list.error} what="triggers" />}
      <div className="split">
        <section className="list-pane">
          <table className="table" data-testid="triggers-table">
            <thead>
              <tr>
                <th>Type</th>
                <th>Function</th>
                <th>Config</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((t) => (
                <tr
                  key={t.id}
                  className={t.id === current?.id ? 'selected' : ''}
                  onClick={() => setSelected(t.id)}
                  data-testid={`trigger-row-${t.function_id}`}
                >
                  <td>{t.trigger_type}</td>
                  <td className="mono">{t.function_id}</td>
                  <td className="mono small">{summary(t)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {!list.loading && shown.length === 0 && <div className="empty">No {TAB_LABEL[tab]} triggers.</div>}
          {tab === 'other' && <TriggerTypes />}
        </section>
        <section className="detail-pane">
          {current && <TriggerPanel key={current.id} trigger={current} tab={tab} />}
        </section>
      </div>
    </div>
  );
}

interface TriggerType {
  id: string;
  worker_name: string;
  description: string;
}

/** Every trigger type and the worker that provides it. */
function TriggerTypes() {
  const types = useLoad(() => api<{ triggers: TriggerType[] }>('GET', 'trigger-types'), []);
  return (
    <div>
      <h3>Trigger types</h3>
      {types.error !== undefined && <ErrorBox error={types.error} what="trigger types" />}
      <table className="table small" data-testid="trigger-types">
        <tbody>
          {(types.data?.triggers ?? []).map((t) => (
            <tr key={t.id}>
              <td className="mono">{t.id}</td>
              <td>{t.worker_name}</td>
              <td className="muted">{t.description}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function summary(t: RegisteredTrigger): string {
  const c = t.config;
  if (t.trigger_type === 'http')
    return `${textOf(c.http_method ?? 'GET').toUpperCase()} /${textOf(c.api_path ?? '').replace(/^\//, '')}`;
  if (t.trigger_type === 'cron') return textOf(c.expression ?? '');
  if (t.trigger_type === 'subscribe') return textOf(c.topic ?? '');
  const text = JSON.stringify(c);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function TriggerPanel({ trigger, tab }: { trigger: RegisteredTrigger; tab: Tab }) {
  if (tab === 'http') return <HttpPanel trigger={trigger} />;
  if (tab === 'cron') return <CronPanel trigger={trigger} />;
  if (tab === 'event') return <EventPanel trigger={trigger} />;
  return (
    <div className="panel">
      <h2>
        {trigger.trigger_type} → <span className="mono">{trigger.function_id}</span>
      </h2>
      <div className="meta">
        <span>id {trigger.id}</span>
        <span>worker {trigger.worker_name}</span>
      </div>
      <JsonView value={trigger.config} />
    </div>
  );
}
