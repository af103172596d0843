/** Graph views of one trace (React Flow, laid out by dagre): the Trace Map of services and the Flow of spans. */
import { Background, Controls, ReactFlow, type Edge, type Node } from '@xyflow/react';
import { useMemo } from 'react';
import { autoLayout } from '../components/graph-layout';
import { fmtMs, type Span } from './model';

function Graph({ nodes, edges, testId }: { nodes: Node[]; edges: Edge[]; testId: string }) {
  return (
    <div className="graph" data-testid={testId}>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        fitViewOptions={{ maxZoom: 1.2 }}
        proOptions={{ hideAttribution: true }}
        nodesConnectable={false}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}

/** Services as nodes, calls between services as edges labelled with their count. */
export function TraceMap({ spans }: { spans: Span[] }) {
  const { nodes, edges } = useMemo(() => {
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const services = new Map<string, { spans: number; errors: number }>();
    const calls = new Map<string, number>();
    for (const s of spans) {
      const svc = services.get(s.service) ?? { spans: 0, errors: 0 };
      svc.spans += 1;
      svc.errors += s.status === 'error' ? 1 : 0;
      services.set(s.service, svc);
      const parent = s.parentSpanId ? byId.get(s.parentSpanId) : undefined;
      if (parent && parent.service !== s.service) {
        const key = `${parent.service}\u0000${s.service}`;
        calls.set(key, (calls.get(key) ?? 0) + 1);
      }
    }
    const nodes: Node[] = [...services.entries()].map(([name, s]) => ({
      id: name,
      position: { x: 0, y: 0 },
      data: { label: `${name} · ${s.spans} spans${s.errors ? ` · ${s.errors} errors` : ''}` },
      className: s.errors ? 'node-error' : 'node-service',
    }));
    const edges: Edge[] = [...calls.entries()].map(([key, count]) => {
      const [source = '', target = ''] = key.split('\u0000');
      return { id: key, source, target, label: `${count}×`, animated: true };
    });
    return { nodes: autoLayout(nodes, edges), edges };
  }, [spans]);
  return <Graph nodes={nodes} edges={edges} testId="trace-map" />;
}

/** Each span as a node, parent → child edges: the path the request took. */
export function SpanFlow({ spans, onSelect }: { spans: Span[]; onSelect: (span: Span) => void }) {
  const { nodes, edges } = useMemo(() => {
    const ids = new Set(spans.map((s) => s.spanId));
    const nodes: Node[] = spans.map((s) => ({
      id: s.spanId,
      position: { x: 0, y: 0 },
      data: { label: `${s.name}\n${s.service} · ${fmtMs(s.duration)}` },
      className: s.status === 'error' ? 'node-error' : 'node-span',
    }));
    const edges: Edge[] = spans
      .filter((s) => s.parentSpanId && ids.has(s.parentSpanId))
      .map((s) => ({ id: `${s.parentSpanId}-${s.spanId}`, source: s.parentSpanId!, target: s.spanId }));
    return { nodes: autoLayout(nodes, edges), edges };
  }, [spans]);
  return (
    <div className="graph" data-testid="span-flow">
      <ReactFlow
        nodes={nodes}
        edges={edges}
        fitView
        fitViewOptions={{ maxZoom: 1.2 }}
        proOptions={{ hideAttribution: true }}
        nodesConnectable={false}
        onNodeClick={(_, node) => {
          const span = spans.find((s) => s.spanId === node.id);
          if (span) onSelect(span);
        }}
      >
        <Background />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  );
}
