import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StudioStore } from '../../../src/studio/store/repositories.js';
import type { NodeRow } from '../../../src/studio/store/nodes.js';
import { assetRow, minute, type MakeStore, type StoreHarness } from './harness.js';

// The GraphSessionRepository and NodeRepository contracts: sessions as rows
// with a versioned graph (compare-and-swap, one winner), and nodes written
// together with the graph change they ask for, or not at all.

const EMPTY = '{"nodes":[],"edges":[]}';
const graphWith = (ids: readonly string[]) => JSON.stringify({ nodes: ids.map((id) => ({ id, type: 'image', data: {} })), edges: [] });
const session = (id: string, createdAt: string, title = `session ${id}`) => ({
  id,
  title,
  version: 1,
  graph: EMPTY,
  created_at: createdAt,
  updated_at: createdAt,
});

export function describeGraphRepositoriesContract(name: string, makeStore: MakeStore): void {
  describe(`GraphSessionRepository and NodeRepository contract: ${name}`, () => {
    let harness: StoreHarness;
    let store: StudioStore;
    beforeEach(async () => {
      harness = await makeStore();
      store = harness.store;
    });
    afterEach(() => harness.close());

    it('answers a session as inserted; lists live ones newest first with their counts, a page after a position', async () => {
      await store.graphSessions.insert(session('a', minute(1)));
      await store.graphSessions.insert({ ...session('b', minute(2)), graph: graphWith(['n1', 'n2']) });
      await store.graphSessions.insert(session('c', minute(2)));
      await store.graphSessions.insert(session('gone', minute(3)));
      expect(await store.graphSessions.markDeleted('gone', EMPTY, minute(4))).toBe(true);
      expect(await store.graphSessions.find('a')).toEqual({ ...session('a', minute(1)), deleted_at: null });
      expect(await store.graphSessions.find('nope')).toBeUndefined();
      const first = await store.graphSessions.listLive({ limit: 2 });
      expect(first.map((row) => [row.id, row.node_count, row.edge_count])).toEqual([
        ['c', 0, 0],
        ['b', 2, 0],
      ]);
      expect(first[0]).not.toHaveProperty('graph');
      const rest = await store.graphSessions.listLive({ limit: 10, after: { createdAt: first[1].created_at, id: first[1].id } });
      expect(rest.map((row) => row.id)).toEqual(['a']);
    });

    it('renames and deletes live sessions only; a deleted one keeps its row and title with an empty graph', async () => {
      await store.graphSessions.insert({ ...session('a', minute(1)), graph: graphWith(['n1']) });
      expect(await store.graphSessions.rename('a', 'New title', minute(2))).toBe(true);
      expect(await store.graphSessions.find('a')).toMatchObject({ title: 'New title', updated_at: minute(2), version: 1 });
      expect(await store.graphSessions.rename('nope', 'x', minute(2))).toBe(false);
      expect(await store.graphSessions.markDeleted('a', EMPTY, minute(3))).toBe(true);
      expect(await store.graphSessions.markDeleted('a', EMPTY, minute(4))).toBe(false);
      expect(await store.graphSessions.find('a')).toMatchObject({ title: 'New title', graph: EMPTY, deleted_at: minute(3) });
      expect(await store.graphSessions.rename('a', 'again', minute(5))).toBe(false);
    });

    it('replaces a graph by compare-and-swap: replaced (version + 1), kept, or missing', async () => {
      await store.graphSessions.insert(session('a', minute(1)));
      const replaced = await store.graphSessions.replaceGraph('a', (row) => (row.version === 1 ? graphWith(['n1']) : undefined), minute(2));
      expect(replaced).toMatchObject({ outcome: 'replaced', row: { version: 2, graph: graphWith(['n1']), updated_at: minute(2) } });
      expect(await store.graphSessions.find('a')).toMatchObject({ version: 2, graph: graphWith(['n1']) });
      const kept = await store.graphSessions.replaceGraph('a', (row) => (row.version === 1 ? graphWith(['n2']) : undefined), minute(3));
      expect(kept).toMatchObject({ outcome: 'kept', row: { version: 2 } });
      expect((await store.graphSessions.replaceGraph('nope', () => EMPTY, minute(3))).outcome).toBe('missing');
      await store.graphSessions.markDeleted('a', EMPTY, minute(4));
      expect(await store.graphSessions.replaceGraph('a', () => graphWith(['n3']), minute(5))).toMatchObject({
        outcome: 'missing',
        row: { deleted_at: minute(4) },
      });
    });

    it('lets exactly one of two saves made from the same version land', async () => {
      await store.graphSessions.insert(session('a', minute(1)));
      const outcomes = await Promise.all(
        ['x', 'y'].map((id) =>
          store.graphSessions.replaceGraph('a', (row) => (row.version === 1 ? graphWith([id]) : undefined), minute(2)),
        ),
      );
      expect(outcomes.map((outcome) => outcome.outcome).sort()).toEqual(['kept', 'replaced']);
      expect((await store.graphSessions.find('a'))?.version).toBe(2);
    });

    const node = (id: string, overrides: Partial<NodeRow> = {}): NodeRow => ({
      id,
      session_id: 'a',
      parent_id: null,
      request_id: `request-${id}`,
      operation: 'generate',
      prompt: 'a lighthouse',
      revised_prompt: null,
      lane: 'api',
      model: 'lang-5.6-luna',
      settings: '{"format":"png"}',
      asset_filename: `${id}.png`,
      created_at: minute(5),
      ...overrides,
    });

    it('records a node and answers it with its session and its image as they are now', async () => {
      await store.graphSessions.insert(session('a', minute(1), 'Trip'));
      await store.assets.insert(assetRow('n1.png'));
      expect(await store.nodes.record(node('n1'))).toBeUndefined();
      expect(await store.nodes.find('n1')).toMatchObject({
        ...node('n1'),
        session_title: 'Trip',
        session_deleted_at: null,
        asset_id: expect.any(Number),
        asset_deleted_at: null,
      });
      expect(await store.nodes.find('nope')).toBeUndefined();
      await store.assets.markDeleted('n1.png', minute(6));
      await store.graphSessions.markDeleted('a', EMPTY, minute(7));
      expect(await store.nodes.find('n1')).toMatchObject({ session_deleted_at: minute(7), asset_deleted_at: minute(6) });
      await store.assets.remove('n1.png');
      expect((await store.nodes.find('n1'))?.asset_id).toBeNull();
      // A node with no session.
      await store.nodes.record(node('n2', { session_id: null }));
      expect(await store.nodes.find('n2')).toMatchObject({ session_id: null, session_title: null });
    });

    it('records a node with its graph change in one unit of work', async () => {
      await store.graphSessions.insert(session('a', minute(1)));
      const added = await store.nodes.record(node('n1'), { sessionId: 'a', next: () => graphWith(['n1']) });
      expect(added).toMatchObject({ outcome: 'replaced', row: { version: 2 } });
      expect(await store.graphSessions.find('a')).toMatchObject({ version: 2, graph: graphWith(['n1']) });

      // The graph change fails: the node is not written either.
      await expect(
        store.nodes.record(node('n2'), {
          sessionId: 'a',
          next: () => {
            throw new Error('no room');
          },
        }),
      ).rejects.toThrow('no room');
      expect(await store.nodes.find('n2')).toBeUndefined();
      // The node cannot be written (its id is taken): the graph is left as it was.
      await expect(store.nodes.record(node('n1'), { sessionId: 'a', next: () => graphWith(['n1', 'again']) })).rejects.toThrow();
      expect(await store.graphSessions.find('a')).toMatchObject({ version: 2, graph: graphWith(['n1']) });

      // A session deleted meanwhile: the node stands, the graph is missing.
      await store.graphSessions.markDeleted('a', EMPTY, minute(8));
      expect(await store.nodes.record(node('n3'), { sessionId: 'a', next: () => graphWith(['n3']) })).toMatchObject({ outcome: 'missing' });
      expect(await store.nodes.find('n3')).toBeDefined();
    });
  });
}
