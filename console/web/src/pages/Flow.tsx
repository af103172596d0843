/**
 * The graph of triggers and functions: each trigger binding is a node pointing at its function. Laid out by dagre;
 * a dragged layout is saved in the engine's state store (`_console/flows/config/default`) and restored next time.
 */
import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  applyNodeChanges,
  type Edge,
  type Node,
  type NodeChange,
} from '@xyflow/react';
import { useCallback, useEffect, useState } from 'react';
import { api } from '../api';
import { textOf } from '../text';
import { ErrorBox } from '../components/ErrorBox';
import { autoLayout } from '../components/graph-layout';
import { JsonView } from '../components/JsonEditor';
import type { FunctionSummary } from './Functions';
import type { RegisteredTrigger } from './trigger-model';

const FLOW_ID = 'default';

type Inspect = { kind: 'function'; fn: FunctionSummary } | { kind: 'trigger'; trigger: RegisteredTrigger };

interface Graph {
  nodes: Node[];
  edges: Edge[];
  lookup: Map<string, Inspect>;
}

/** Functions no trigger points at go in a grid under the graph (or are left out). */
function placeIsolated(laid: Node[], isolated: Node[]): Node[] {
  const bottom = laid.reduce((y, n) => Math.max(y, n.position.y), 0) + 120;
  return isolated.map((n, i) => ({ ...n, position: { x: (i % 4) * 250, y: bottom + Math.floor(i / 4) * 80 } }));
}

async function loadGraph(showAll: boolean): Promise<Graph> {
  const [{ functions }, { registered_triggers }, saved] = await Promise.all([
    api<{ functions: FunctionSummary[] }>('GET', 'functions'),
    api<{ registered_triggers: RegisteredTrigger[] }>('GET', 'triggers'),
    api<{ config: { positions?: Record<string, { x: number; y: number }> } | null }>(
      'GET',
      `flows/config/${FLOW_ID}`,
    ).catch(() => ({ config: null })),
  ]);
  const lookup = new Map<string, Inspect>();
  const nodes: Node[] = functions.map((fn) => {
    lookup.set(`fn:${fn.function_id}`, { kind: 'function', fn });
    return {
      id: `fn:${fn.function_id}`,
      position: { x: 0, y: 0 },
      data: { label: fn.function_id },
      className: 'node-function',
    };
  });
  const edges: Edge[] = [];
  for (const t of registered_triggers.filter((x) => !x.function_id.startsWith('engine::console::'))) {
    lookup.set(`tr:${t.id}`, { kind: 'trigger', trigger: t });
    nodes.push({
      id: `tr:${t.id}`,
      position: { x: 0, y: 0 },
      data: { label: triggerLabel(t) },
      className: `node-trigger node-${t.trigger_type}`,
    });
    edges.push({ id: `e:${t.id}`, source: `tr:${t.id}`, target: `fn:${t.function_id}`, animated: true });
  }
  const bound = new Set(edges.map((e) => e.target));
  const connected = nodes.filter((n) => n.id.startsWith('tr:') || bound.has(n.id));
  const isolated = showAll ? nodes.filter((n) => n.id.startsWith('fn:') && !bound.has(n.id)) : [];
  for (const n of nodes) if (n.id.startsWith('fn:') && !bound.has(n.id) && !showAll) lookup.delete(n.id);
  const liveEdges = edges.filter((e) => lookup.has(e.target));
  const laid = autoLayout(connected, liveEdges);
  const positions = saved.config?.positions ?? {};
  const all = [...laid, ...placeIsolated(laid, isolated)];
  return {
    nodes: all.map((n) => (positions[n.id] ? { ...n, position: positions[n.id]! } : n)),
    edges: liveEdges,
    lookup,
  };
}

function triggerLabel(t: RegisteredTrigger): string {
  const c = t.config;
  if (t.trigger_type === 'http')
    return `HTTP ${textOf(c.http_method ?? 'GET').toUpperCase()} /${textOf(c.api_path ?? '').replace(/^\//, '')}`;
  if (t.trigger_type === 'cron') return `cron ${textOf(c.expression ?? '')}`;
  if (t.trigger_type === 'subscribe') return `event ${textOf(c.topic ?? '')}`;
  if (t.trigger_type === 'durable:subscriber' || t.trigger_type === 'queue') {
    return `queue ${textOf(c.topic ?? c.queue ?? '')}`;
  }
  if (t.trigger_type === 'state') return `state ${textOf(c.scope ?? '*')}${c.key ? `/${textOf(c.key)}` : ''}`;
  if (t.trigger_type === 'stream') return `stream ${textOf(c.stream_name ?? '*')}`;
  return t.trigger_type;
}

export function FlowPage() {
  const [graph, setGraph] = useState<Graph>();
  const [nodes, setNodes] = useState<Node[]>([]);
  const [error, setError] = useState<unknown>();
  const [inspect, setInspect] = useState<Inspect>();
  const [saved, setSaved] = useState('');
  const [showAll, setShowAll] = useState(false);
  const load = useCallback(() => {
    loadGraph(showAll).then((g) => (setGraph(g), setNodes(g.nodes), setError(undefined)), setError);
  }, [showAll]);
  useEffect(load, [load]);
  const save = async (list: Node[]): Promise<void> => {
    const positions = Object.fromEntries(list.map((n) => [n.id, n.position]));
    try {
      await api('POST', `flows/config/${FLOW_ID}`, { positions });
      setSaved(`layout saved ${new Date().toLocaleTimeString()}`);
    } catch (err) {
      setError(err);
    }
  };
  const relayout = (): void => {
    if (!graph) return;
    const bound = new Set(graph.edges.flatMap((e) => [e.source, e.target]));
    const laid = autoLayout(
      nodes.filter((n) => bound.has(n.id)),
      graph.edges,
    );
    const all = [
      ...laid,
      ...placeIsolated(
        laid,
        nodes.filter((n) => !bound.has(n.id)),
      ),
    ];
    setNodes(all);
    void save(all);
  };
  return (
    <div className="flow-page">
      <div className="toolbar">
        <button onClick={relayout} data-testid="flow-auto-layout">
          Auto layout
        </button>
        <button onClick={load}>Refresh</button>
        <label className="check">
          <input type="checkbox" checked={showAll} onChange={(e) => setShowAll(e.target.checked)} /> functions without
          triggers
        </label>
        <span className="muted" data-testid="flow-saved">
          {saved}
        </span>
        <span className="muted">{graph ? `${graph.lookup.size} nodes` : ''}</span>
      </div>
      {error !== undefined && <ErrorBox error={error} what="flow" />}
      <div className="flow-body">
        <div className="graph tall" data-testid="flow-graph">
          {graph && (
            <ReactFlow
              nodes={nodes}
              edges={graph?.edges ?? []}
              fitView
              fitViewOptions={{ maxZoom: 1 }}
              proOptions={{ hideAttribution: true }}
              nodesConnectable={false}
              onNodesChange={(changes: NodeChange[]) => setNodes((ns) => applyNodeChanges(changes, ns))}
              onNodeDragStop={(_event, _node, dragged) => {
                const moved = new Map(dragged.map((d) => [d.id, d.position]));
                void save(nodes.map((n) => ({ ...n, position: moved.get(n.id) ?? n.position })));
              }}
              onNodeClick={(_, node) => setInspect(graph?.lookup.get(node.id))}
            >
              <Background />
              <MiniMap pannable zoomable />
              <Controls showInteractive={false} />
            </ReactFlow>
          )}
        </div>
        {inspect && (
          <aside className="span-detail" data-testid="flow-inspect">
            {inspect.kind === 'function' ? (
              <>
                <h3 className="mono">{inspect.fn.function_id}</h3>
                <div className="meta">
                  <span>worker {inspect.fn.worker_name}</span>
                  <span>replicas {inspect.fn.replicas ?? 1}</span>
                </div>
                {inspect.fn.description && <p>{inspect.fn.description}</p>}
              </>
            ) : (
              <>
                <h3>{inspect.trigger.trigger_type} trigger</h3>
                <div className="meta">
                  <span className="mono">→ {inspect.trigger.function_id}</span>
                </div>
                <JsonView value={inspect.trigger.config} />
              </>
            )}
          </aside>
        )}
      </div>
    </div>
  );
}
