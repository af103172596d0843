import { Component, type ReactNode } from 'react';
import { api, config } from './api';
import { ErrorBox } from './components/ErrorBox';
import { useInterval, useLoad } from './components/hooks';
import { FlowPage } from './pages/Flow';
import { FunctionsPage } from './pages/Functions';
import { LogsPage } from './pages/Logs';
import { QueuesPage } from './pages/Queues';
import { StatesPage } from './pages/States';
import { StreamsPage } from './pages/Streams';
import { TriggersPage } from './pages/Triggers';
import { WorkersPage } from './pages/Workers';
import { Link, useLocation } from './router';
import { TracesPage } from './traces/Traces';

const PAGES = [
  ['functions', 'Functions'],
  ['triggers', 'Triggers'],
  ['states', 'States'],
  ['streams', 'Streams'],
  ['traces', 'Traces'],
  ['logs', 'Logs'],
  ['flow', 'Flow'],
  ['queues', 'Queues'],
  ['workers', 'Workers'],
] as const;

interface Status {
  connected: boolean;
  engine: string;
  workers: number;
}

export function App() {
  const { page, rest } = useLocation();
  const status = useLoad(() => api<Status>('GET', 'status'), []);
  useInterval(status.reload, 5000);
  const pages = PAGES.filter(([id]) => id !== 'flow' || config.enableFlow);
  const title = PAGES.find(([id]) => id === page)?.[1] ?? 'Not found';
  return (
    <div className="app">
      <nav className="sidebar">
        <div className="brand">
          svc <span>console</span>
        </div>
        {pages.map(([id, label]) => (
          <Link key={id} to={`/${id}`} className={id === page ? 'active' : ''} testId={`nav-${id}`}>
            {label}
          </Link>
        ))}
        <div className="sidebar-foot">
          <span className={`dot ${status.data && status.error === undefined ? 'ok' : 'error'}`} />
          <span data-testid="engine-status">
            {status.error === undefined && status.data ? `engine · ${status.data.workers} workers` : 'not connected'}
          </span>
          <div className="muted small">{config.version ? `v${config.version}` : ''}</div>
        </div>
      </nav>
      <main className="content">
        <header className="page-head">
          <h1>{title}</h1>
        </header>
        {status.error !== undefined && <ErrorBox error={status.error} what="engine" />}
        <Boundary key={page}>{renderPage(page, rest)}</Boundary>
      </main>
    </div>
  );
}

function renderPage(page: string, rest: string): ReactNode {
  switch (page) {
    case 'functions':
      return <FunctionsPage selected={rest} />;
    case 'triggers':
      return <TriggersPage />;
    case 'states':
      return <StatesPage />;
    case 'streams':
      return <StreamsPage />;
    case 'traces':
      return <TracesPage traceId={rest} />;
    case 'logs':
      return <LogsPage />;
    case 'flow':
      return config.enableFlow ? (
        <FlowPage />
      ) : (
        <div className="notice">
          The Flow page is off. Start the console with --enable-flow (or SVC_ENABLE_FLOW=true).
        </div>
      );
    case 'queues':
      return <QueuesPage />;
    case 'workers':
      return <WorkersPage />;
    default:
      return <div className="empty">No page "{page}".</div>;
  }
}

/** A page that throws while rendering shows its error in place; the rest of the console keeps working. */
class Boundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: undefined };
  static getDerivedStateFromError(error: unknown) {
    return { error };
  }
  override render() {
    return this.state.error !== undefined ? <ErrorBox error={this.state.error} what="page" /> : this.props.children;
  }
}
