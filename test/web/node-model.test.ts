import { describe, expect, it } from 'vitest';
import type { NodeGenerationResult } from '../../src/studio/api/index.js';
import {
  childPosition,
  COLUMN,
  difference,
  editEdge,
  finishNode,
  pendingNode,
  rootPosition,
  ROW,
  toFlow,
  toSnapshot,
} from '../../web/studio/src/views/node/graphModel.js';

// The Node view's pure graph changes: snapshot <-> editor, placement, and a
// finished job turning its pending node into the server's node.

const result = (nodeId: string): NodeGenerationResult =>
  ({
    nodeId,
    parentNodeId: null,
    sessionId: 's1',
    provider: 'oauth',
    model: 'lang-6-luna',
    asset: { filename: `${nodeId}.png`, url: `/generated/${nodeId}.png`, thumbnailUrl: `/generated/thumbs/${nodeId}.webp`, prompt: 'p' },
  }) as unknown as NodeGenerationResult;

describe('the Node view graph model', () => {
  it('round-trips a snapshot, keeping edge kinds, a viewport and another client node type, and dropping editor state', () => {
    const snapshot = {
      nodes: [
        { id: 'a', type: 'image', position: { x: 0, y: 0 }, data: { prompt: 'a fox' } },
        { id: 'b', type: 'prompt', position: { x: 10.4, y: 380 }, data: { text: 'theirs' } },
      ],
      edges: [{ id: 'r1', source: 'a', target: 'b', kind: 'reference' as const }],
      viewport: { x: 1, y: 2, zoom: 0.5 },
    };
    const flow = toFlow(snapshot);
    const selected = flow.nodes.map((node) => ({ ...node, selected: true, measured: { width: 220, height: 300 } }));
    expect(toSnapshot(selected, flow.edges, snapshot.viewport, flow.foreignTypes)).toEqual({
      ...snapshot,
      nodes: [snapshot.nodes[0], { ...snapshot.nodes[1], position: { x: 10, y: 380 } }],
    });
  });

  it('places a root right of the rightmost node and a child below its parent, beside its siblings', () => {
    expect(rootPosition([])).toEqual({ x: 0, y: 0 });
    const a = pendingNode('a', 'a', { x: 100, y: 50 });
    const b = pendingNode('b', 'b', { x: 400, y: 50 });
    expect(rootPosition([a, b])).toEqual({ x: 400 + COLUMN, y: 50 });
    expect(childPosition(a, [])).toEqual({ x: 100, y: 50 + ROW });
    expect(childPosition(a, [editEdge('a', 'c1'), editEdge('b', 'x')])).toEqual({ x: 100 + COLUMN, y: 50 + ROW });
  });

  it('gives a finished node the server node id and image, renaming its edges both ways', () => {
    const parent = pendingNode('web-1', 'root', { x: 0, y: 0 });
    const child = pendingNode('web-2', 'child', { x: 0, y: ROW });
    const grandchild = pendingNode('web-3', 'grandchild', { x: 0, y: 2 * ROW });
    const edges = [editEdge('web-1', 'web-2'), editEdge('web-2', 'web-3')];
    const done = finishNode([parent, child, grandchild], edges, 'web-2', result('node-2'));
    expect(done.nodes.map((node) => node.id)).toEqual(['web-1', 'node-2', 'web-3']);
    expect(done.nodes[1].data).toEqual({
      prompt: 'child',
      filename: 'node-2.png',
      url: '/generated/node-2.png',
      thumbnailUrl: '/generated/thumbs/node-2.webp',
      provider: 'oauth',
      model: 'lang-6-luna',
      requestId: 'web-2',
    });
    expect(done.edges.map(({ id, source, target }) => ({ id, source, target }))).toEqual([
      { id: 'edit-node-2', source: 'web-1', target: 'node-2' },
      { id: 'edit-web-3', source: 'node-2', target: 'web-3' },
    ]);
  });

  it('names the nodes only one side of a conflict has', () => {
    expect(difference([{ id: 'a' }, { id: 'b' }], [{ id: 'b' }, { id: 'c' }])).toEqual({ onlyMine: ['a'], onlyTheirs: ['c'] });
  });
});
