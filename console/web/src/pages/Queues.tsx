import { useState } from 'react';
import { api, enc } from '../api';
import { Confirm } from '../components/Confirm';
import { ErrorBox } from '../components/ErrorBox';
import { useInterval, useLoad } from '../components/hooks';
import { JsonEditor, JsonView, parseJson } from '../components/JsonEditor';
import { useLive } from '../live';

/** A topic's counts from `engine::queue::list_topics`; an older queue worker may not report the totals. */
interface Topic {
  topic: string;
  queue?: string;
  waiting: number;
  active: number;
  delayed?: number;
  dead: number;
  /** Jobs finished successfully. */
  completed?: number;
  /** Jobs moved to dead letters after their last attempt (stays counted after a redrive or delete). */
  failed?: number;
}

interface DeadLetter {
  id: string;
  function_id: string;
  data: unknown;
  attempts: number;
  error?: { code: string; message: string };
  failed_at: number;
}

export function QueuesPage() {
  const topics = useLoad(() => api<{ topics: Topic[] }>('GET', 'queues'), []);
  const live = useLive(['queues'], () => topics.reload());
  useInterval(() => {
    if (!live) topics.reload();
  }, 3000);
  const [selected, setSelected] = useState<string>();
  const [other, setOther] = useState('');
  const current = selected ?? topics.data?.topics[0]?.topic;
  return (
    <div className="split">
      <section className="list-pane">
        <div className="toolbar">
          <strong>Topics</strong>
          <span className={`badge ${live ? 'green' : 'grey'}`}>{live ? 'live' : 'polling'}</span>
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              if (other.trim()) setSelected(other.trim());
            }}
          >
            <input placeholder="another topic" value={other} onChange={(e) => setOther(e.target.value)} />
            <button type="submit">Open</button>
          </form>
        </div>
        {topics.error !== undefined && <ErrorBox error={topics.error} what="queues" />}
        <table className="table" data-testid="queues-table">
          <thead>
            <tr>
              <th>Topic</th>
              <th title="waiting + delayed">Depth</th>
              <th>In flight</th>
              <th title="jobs finished successfully">Completed</th>
              <th title="jobs moved to dead letters after their last attempt">Failed</th>
              <th title="dead letters waiting for Retry or Delete">Dead letters</th>
            </tr>
          </thead>
          <tbody>
            {(topics.data?.topics ?? []).map((t) => (
              <tr
                key={t.topic}
                className={t.topic === current ? 'selected' : ''}
                onClick={() => setSelected(t.topic)}
                data-testid={`queue-row-${t.topic}`}
              >
                <td className="mono">{t.topic}</td>
                <td data-testid={`queue-depth-${t.topic}`}>{t.waiting + (t.delayed ?? 0)}</td>
                <td>{t.active}</td>
                <td data-testid={`queue-completed-${t.topic}`}>{t.completed ?? '—'}</td>
                <td data-testid={`queue-failed-${t.topic}`}>{t.failed ?? '—'}</td>
                <td data-testid={`queue-dead-${t.topic}`}>{t.dead}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {topics.data?.topics.length === 0 && <div className="empty">No queues yet.</div>}
      </section>
      <section className="detail-pane">
        {current && <TopicPanel key={current} topic={current} onChange={topics.reload} />}
      </section>
    </div>
  );
}

function TopicPanel({ topic, onChange }: { topic: string; onChange: () => void }) {
  const [tab, setTab] = useState<'overview' | 'dlq'>('overview');
  return (
    <div className="panel">
      <h2 className="mono">{topic}</h2>
      <div className="tabs">
        <button
          className={tab === 'overview' ? 'active' : ''}
          onClick={() => setTab('overview')}
          data-testid="queue-tab-overview"
        >
          Overview
        </button>
        <button className={tab === 'dlq' ? 'active' : ''} onClick={() => setTab('dlq')} data-testid="queue-tab-dlq">
          Dead Letters
        </button>
      </div>
      {tab === 'overview' ? (
        <Publish topic={topic} onDone={onChange} />
      ) : (
        <DeadLetters topic={topic} onChange={onChange} />
      )}
    </div>
  );
}

function Publish({ topic, onDone }: { topic: string; onDone: () => void }) {
  const [payload, setPayload] = useState('{}');
  const [done, setDone] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const parsed = parseJson(payload);
  const publish = async (): Promise<void> => {
    setFailure(undefined);
    try {
      await api('POST', `queues/${enc(topic)}/publish`, { data: parsed.value });
      setDone(`published at ${new Date().toLocaleTimeString()}`);
      onDone();
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <div>
      <JsonEditor label="Message (JSON)" value={payload} onChange={setPayload} testId="queue-payload" rows={6} />
      <button
        className="primary"
        disabled={parsed.error !== undefined}
        onClick={() => void publish()}
        data-testid="queue-publish"
      >
        Publish
      </button>
      {failure !== undefined && <ErrorBox error={failure} what="publish" />}
      {done && (
        <div className="result ok" data-testid="queue-publish-result">
          <span className="badge green">ok</span> {done}
        </div>
      )}
    </div>
  );
}

function DeadLetters({ topic, onChange }: { topic: string; onChange: () => void }) {
  const page = useLoad(
    () => api<{ messages: DeadLetter[]; total: number }>('POST', `dlq/${enc(topic)}/messages`, { limit: 100 }),
    [topic],
  );
  const [failure, setFailure] = useState<unknown>();
  const [discarding, setDiscarding] = useState<string>();
  const act = async (method: string, route: string): Promise<void> => {
    setFailure(undefined);
    try {
      await api(method, route);
      page.reload();
      onChange();
    } catch (err) {
      setFailure(err);
    }
  };
  const messages = page.data?.messages ?? [];
  return (
    <div>
      <div className="toolbar">
        <span data-testid="dlq-total">{page.data?.total ?? 0} dead letters</span>
        <button
          className="primary"
          disabled={messages.length === 0}
          onClick={() => void act('POST', `dlq/${enc(topic)}/redrive`)}
          data-testid="dlq-retry-all"
        >
          Retry all
        </button>
      </div>
      {page.error !== undefined && <ErrorBox error={page.error} what="dead letters" />}
      {failure !== undefined && <ErrorBox error={failure} what="dead letter" />}
      {messages.map((m) => (
        <div className="card" key={m.id} data-testid={`dlq-message-${m.id}`}>
          <div className="result-head">
            <span className="mono small">{m.id}</span>
            <span>→ {m.function_id}</span>
            <span>{m.attempts} attempts</span>
            <span>{new Date(m.failed_at).toLocaleString()}</span>
          </div>
          {m.error && (
            <div className="error-message">
              <span className="code">{m.error.code}</span> {m.error.message}
            </div>
          )}
          <JsonView value={m.data} />
          <div className="row">
            <button
              onClick={() => void act('POST', `dlq/${enc(topic)}/messages/${enc(m.id)}/redrive`)}
              data-testid="dlq-retry"
            >
              Retry
            </button>
            <button className="danger" onClick={() => setDiscarding(m.id)} data-testid="dlq-delete">
              Delete
            </button>
          </div>
        </div>
      ))}
      {discarding !== undefined && (
        <Confirm
          message={`Delete dead letter ${discarding} for good?`}
          onConfirm={() => {
            const id = discarding;
            setDiscarding(undefined);
            void act('DELETE', `dlq/${enc(topic)}/messages/${enc(id)}/discard`);
          }}
          onCancel={() => setDiscarding(undefined)}
        />
      )}
    </div>
  );
}
