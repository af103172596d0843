import { useState } from 'react';
import { api } from '../api';
import { textOf } from '../text';
import { ErrorBox } from '../components/ErrorBox';
import { useLoad } from '../components/hooks';
import { JsonEditor, JsonView, parseJson } from '../components/JsonEditor';
import { nextRuns } from '../components/next-runs';
import type { RegisteredTrigger } from './trigger-model';

interface CronJob {
  id: string;
  function_id: string;
  expression: string;
  next_run: string | null;
  last_run: string | null;
}

/** Schedule, next run, and Trigger Now (cron::trigger through the console). */
export function CronPanel({ trigger }: { trigger: RegisteredTrigger }) {
  const jobs = useLoad(() => api<{ jobs: CronJob[] }>('GET', 'cron'), [trigger.id]);
  const job = jobs.data?.jobs.find((j) => j.id === trigger.id);
  const [fired, setFired] = useState<unknown>();
  const [failure, setFailure] = useState<unknown>();
  const fire = async (): Promise<void> => {
    setFailure(undefined);
    try {
      setFired(await api('POST', 'cron/trigger', { trigger_id: trigger.id }));
      jobs.reload();
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <div className="panel">
      <h2>
        Cron → <span className="mono">{trigger.function_id}</span>
      </h2>
      <dl className="facts">
        <dt>Schedule</dt>
        <dd className="mono" data-testid="cron-expression">
          {textOf(trigger.config.expression ?? '')}
        </dd>
        <dt>Next run</dt>
        <dd data-testid="cron-next-run">{job?.next_run ?? '—'}</dd>
        <dt>Then</dt>
        <dd className="small" data-testid="cron-next-runs">
          {nextRuns(
            textOf(trigger.config.expression ?? ''),
            5,
            job?.next_run ? new Date(job.next_run) : new Date(),
          ).map((run) => (
            <div key={run}>{run}</div>
          ))}
        </dd>
        <dt>Last run</dt>
        <dd>{job?.last_run ?? '—'}</dd>
      </dl>
      {jobs.error !== undefined && <ErrorBox error={jobs.error} what="cron schedule" />}
      <button className="primary" onClick={() => void fire()} data-testid="cron-trigger-now">
        Trigger Now
      </button>
      {failure !== undefined && <ErrorBox error={failure} what="trigger now" />}
      {fired !== undefined && (
        <div className="result ok" data-testid="cron-result">
          <div className="result-head">
            <span className="badge green">fired</span>
          </div>
          <JsonView value={fired} />
        </div>
      )}
    </div>
  );
}

/** Event name prefilled, JSON payload, Emit (publish through the console). */
export function EventPanel({ trigger }: { trigger: RegisteredTrigger }) {
  const [topic, setTopic] = useState(textOf(trigger.config.topic ?? ''));
  const [payload, setPayload] = useState('{}');
  const [done, setDone] = useState<string>();
  const [failure, setFailure] = useState<unknown>();
  const parsed = parseJson(payload);
  const emit = async (): Promise<void> => {
    setFailure(undefined);
    setDone(undefined);
    try {
      await api('POST', 'events/emit', { topic, data: parsed.value });
      setDone(`emitted ${topic} at ${new Date().toLocaleTimeString()}`);
    } catch (err) {
      setFailure(err);
    }
  };
  return (
    <div className="panel">
      <h2>
        Event → <span className="mono">{trigger.function_id}</span>
      </h2>
      <label>Event name</label>
      <input className="mono" value={topic} onChange={(e) => setTopic(e.target.value)} data-testid="event-name" />
      <JsonEditor label="Payload (JSON)" value={payload} onChange={setPayload} testId="event-payload" />
      <button
        className="primary"
        onClick={() => void emit()}
        disabled={parsed.error !== undefined || topic === ''}
        data-testid="event-emit"
      >
        Emit
      </button>
      {failure !== undefined && <ErrorBox error={failure} what="emit" />}
      {done && (
        <div className="result ok" data-testid="event-result">
          <span className="badge green">ok</span> {done}
        </div>
      )}
    </div>
  );
}
