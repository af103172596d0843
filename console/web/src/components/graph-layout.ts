/** Auto layout of a node-and-edge graph with dagre (left to right), in React Flow's node shape. */
import dagre from '@dagrejs/dagre';
import { Position, type Edge, type Node } from '@xyflow/react';

export const NODE_W = 220;
export const NODE_H = 56;

export function autoLayout<N extends Node>(nodes: N[], edges: Edge[], direction: 'LR' | 'TB' = 'LR'): N[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: direction, nodesep: 24, ranksep: 70 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: NODE_W, height: NODE_H });
  for (const e of edges) g.setEdge(e.source, e.target);
  dagre.layout(g);
  return nodes.map((n) => {
    const p = g.node(n.id);
    const lr = direction === 'LR';
    return {
      ...n,
      position: { x: (p?.x ?? 0) - NODE_W / 2, y: (p?.y ?? 0) - NODE_H / 2 },
      sourcePosition: lr ? Position.Right : Position.Bottom,
      targetPosition: lr ? Position.Left : Position.Top,
    };
  });
}
