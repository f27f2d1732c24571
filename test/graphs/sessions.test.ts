import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GRAPH_LIMITS,
  graphSaved,
  sessionBody,
  sessionsPage,
  type GraphSaved,
  type SessionBody,
  type SessionsPage,
  type VersionedGraph,
} from '../../src/studio/api/index.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { call, edge, node, type ErrorAnswer } from './helpers.js';

// Graph sessions over HTTP against a real studio: CRUD, paging, the graph
// save with If-Match (428, 412 with the current version and snapshot, ETag),
// the compare-and-swap under a real race, and every way a graph is refused.

let studio: TestStudio;

beforeAll(async () => {
  studio = await startTestStudio();
});
afterAll(() => studio.stop());

const create = async (title: string): Promise<SessionBody> => {
  const answer = await call<SessionBody>(studio, 'POST', '/api/sessions', { title });
  expect(answer.status).toBe(201);
  return answer.body;
};

const put = (id: string, graph: unknown, ifMatch?: string) =>
  call<GraphSaved & ErrorAnswer>(studio, 'PUT', `/api/sessions/${id}/graph`, graph, ifMatch === undefined ? {} : { 'if-match': ifMatch });

describe('sessions', () => {
  it('creates a session with a title, an empty graph at version 1, an ETag and a Location', async () => {
    const answer = await call<SessionBody>(studio, 'POST', '/api/sessions', { title: '  Foxes  ' });
    expect(answer.status).toBe(201);
    expect(sessionBody.parse(answer.body)).toMatchObject({
      title: 'Foxes',
      version: 1,
      nodeCount: 0,
      edgeCount: 0,
      graph: { nodes: [], edges: [] },
    });
    expect(answer.headers.get('etag')).toBe('"1"');
    expect(answer.headers.get('location')).toBe(`/api/sessions/${answer.body.id}`);

    const loaded = await call<SessionBody>(studio, 'GET', `/api/sessions/${answer.body.id}`);
    expect(loaded.status).toBe(200);
    expect(loaded.body).toEqual(answer.body);
    expect(loaded.headers.get('etag')).toBe('"1"');
    expect(loaded.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a missing, empty or too long title and unknown fields, naming the field', async () => {
    for (const body of [{}, { title: '   ' }, { title: 'x'.repeat(GRAPH_LIMITS.titleMaxChars + 1) }]) {
      const answer = await call<ErrorAnswer>(studio, 'POST', '/api/sessions', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'title' } });
    }
    const unknown = await call<ErrorAnswer>(studio, 'POST', '/api/sessions', { title: 'ok', colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toMatchObject({ unknown: ['colour'], valid: ['title'] });
  });

  it('renames without touching the graph version', async () => {
    const session = await create('Draft');
    const renamed = await call<SessionBody>(studio, 'PATCH', `/api/sessions/${session.id}`, { title: 'Final' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: session.id, title: 'Final', version: 1 });
    expect((await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`)).body.title).toBe('Final');
  });

  it('lists live sessions newest first, a page at a time, until nextCursor is null', async () => {
    const own = await startTestStudio();
    try {
      const made: string[] = [];
      for (const title of ['one', 'two', 'three', 'four', 'five'])
        made.push((await call<SessionBody>(own, 'POST', '/api/sessions', { title })).body.id);
      await call(own, 'DELETE', `/api/sessions/${made[2]}`);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
        const page = await call<SessionsPage>(own, 'GET', `/api/sessions${query}`);
        expect(page.status).toBe(200);
        sessionsPage.parse(page.body);
        seen.push(...page.body.sessions.map((session) => session.title));
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor && pages < 5);
      expect(seen).toEqual(['five', 'four', 'two', 'one']);
      expect(pages).toBe(2);
      const forged = await call<ErrorAnswer>(own, 'GET', '/api/sessions?cursor=bm9wZQ');
      expect(forged.status).toBe(400);
      expect(forged.body.error.details).toMatchObject({ field: 'cursor' });
      expect((await call<ErrorAnswer>(own, 'GET', '/api/sessions?limit=0')).status).toBe(400);
    } finally {
      await own.stop();
    }
  });

  it('with an access token, a reader may send it as ?token= on the listing', async () => {
    const guarded = await startTestStudio({ token: 'graph-token-1' });
    try {
      expect((await guarded.request('/api/sessions')).status).toBe(401);
      const page = await guarded.request('/api/sessions?limit=5&token=graph-token-1');
      expect(page.status).toBe(200);
      expect(await page.json()).toEqual({ sessions: [], nextCursor: null });
    } finally {
      await guarded.stop();
    }
  });

  it('deletes a session: it leaves the list and answers SESSION_NOT_FOUND with when; deleting again answers the same', async () => {
    const session = await create('Doomed');
    const deleted = await call<{ id: string; title: string; deletedAt: string }>(studio, 'DELETE', `/api/sessions/${session.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: session.id, title: 'Doomed', deletedAt: expect.any(String) });
    expect((await call(studio, 'DELETE', `/api/sessions/${session.id}`)).body).toEqual(deleted.body);

    for (const [method, path, body] of [
      ['GET', `/api/sessions/${session.id}`, undefined],
      ['GET', `/api/sessions/${session.id}/graph`, undefined],
      ['PATCH', `/api/sessions/${session.id}`, { title: 'back' }],
    ] as const) {
      const answer = await call<ErrorAnswer>(studio, method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      expect(answer.body.error).toMatchObject({
        code: 'SESSION_NOT_FOUND',
        details: { id: session.id, deletedAt: deleted.body.deletedAt },
      });
    }
    const saved = await put(session.id, { nodes: [], edges: [] }, '"1"');
    expect(saved.status).toBe(404);
    expect(saved.body.error.code).toBe('SESSION_NOT_FOUND');
    const listed = await call<SessionsPage>(studio, 'GET', '/api/sessions?limit=200');
    expect(listed.body.sessions.map((item) => item.id)).not.toContain(session.id);
  });

  it('answers SESSION_NOT_FOUND for an unknown id and BAD_REQUEST for an id that is not one', async () => {
    const unknown = await call<ErrorAnswer>(studio, 'GET', '/api/sessions/no-such-session');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SESSION_NOT_FOUND');
    expect((await call<ErrorAnswer>(studio, 'DELETE', '/api/sessions/no-such-session')).body.error.code).toBe('SESSION_NOT_FOUND');
    const malformed = await call<ErrorAnswer>(studio, 'GET', `/api/sessions/${encodeURIComponent('../../etc')}`);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'id' } });
  });
});

describe('PUT /api/sessions/:id/graph', () => {
  const graph = {
    nodes: [node('root', 0, 0, { prompt: 'a fox' }), node('child', 0, 360)],
    edges: [edge('e1', 'root', 'child')],
    viewport: { x: 10, y: -20, zoom: 0.8 },
  };

  it('saves a snapshot with If-Match of the current version: the new version and an ETag', async () => {
    const session = await create('Saving');
    const saved = await put(session.id, graph, '"1"');
    expect(saved.status).toBe(200);
    expect(graphSaved.parse(saved.body)).toMatchObject({ id: session.id, version: 2, nodeCount: 2, edgeCount: 1 });
    expect(saved.headers.get('etag')).toBe('"2"');

    const loaded = await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`);
    expect(loaded.headers.get('etag')).toBe('"2"');
    expect(loaded.body).toMatchObject({ version: 2, nodeCount: 2, edgeCount: 1, graph });
    const alone = await call<VersionedGraph>(studio, 'GET', `/api/sessions/${session.id}/graph`);
    expect(alone.body).toEqual({ ...graph, version: 2 });
    expect(alone.headers.get('etag')).toBe('"2"');

    // A list of tags matches when one of them is current; `*` matches any current graph.
    expect((await put(session.id, { nodes: [], edges: [] }, '"7", "2"')).body.version).toBe(3);
    expect((await put(session.id, graph, '*')).body.version).toBe(4);
  });

  it('answers 428 GRAPH_VERSION_REQUIRED without If-Match, and leaves the graph alone', async () => {
    const session = await create('Unconditional');
    for (const header of [undefined, '']) {
      const answer = await put(session.id, graph, header);
      expect(answer.status).toBe(428);
      expect(answer.body.error).toMatchObject({ code: 'GRAPH_VERSION_REQUIRED', details: { header: 'If-Match' } });
    }
    expect((await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`)).body).toMatchObject({ version: 1, nodeCount: 0 });
  });

  it('answers 412 GRAPH_VERSION_CONFLICT for a stale version, with the current version, its snapshot and its ETag', async () => {
    const session = await create('Stale');
    expect((await put(session.id, graph, '"1"')).status).toBe(200);
    for (const stale of ['"1"', 'W/"2"', '"abc"']) {
      const answer = await put(session.id, { nodes: [], edges: [] }, stale);
      expect(answer.status, stale).toBe(412);
      expect(answer.body.error).toMatchObject({ code: 'GRAPH_VERSION_CONFLICT', details: { version: 2, ifMatch: stale, graph } });
      expect(answer.headers.get('etag')).toBe('"2"');
    }
    // A stale save is refused before its body is looked at (HTTP evaluates the precondition first).
    expect((await put(session.id, { nodes: 'nope' }, '"1"')).status).toBe(412);
    expect((await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`)).body).toMatchObject({ version: 2, graph });
  });

  it('refuses an If-Match that is not a list of entity tags', async () => {
    const session = await create('Malformed precondition');
    for (const header of ['v1', '"1', '"1" "2"', '1 2']) {
      const answer = await put(session.id, graph, header);
      expect(answer.status, header).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'If-Match' } });
    }
  });

  it('of concurrent saves from the same version, exactly one wins; the others get 412 with the winner', async () => {
    const session = await create('Race');
    const contenders = Array.from({ length: 8 }, (_, index) => ({ nodes: [node(`n${index}`, index * 10, 0)], edges: [] }));
    // All requests are on the wire before any answer is read.
    const answers = await Promise.all(contenders.map((contender) => put(session.id, contender, '"1"')));
    const winners = answers.filter((answer) => answer.status === 200);
    const losers = answers.filter((answer) => answer.status !== 200);
    expect(winners).toHaveLength(1);
    expect(winners[0].body.version).toBe(2);
    expect(losers.map((answer) => answer.status)).toEqual(Array(7).fill(412));
    const winner = contenders[answers.indexOf(winners[0])];
    for (const loser of losers) expect(loser.body.error.details).toMatchObject({ version: 2, graph: winner });
    expect((await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`)).body).toMatchObject({ version: 2, graph: winner });
  });

  it('refuses graphs that break the rules, naming the field, and keeps the stored one', async () => {
    const session = await create('Rules');
    const cases: Array<[string, unknown, string, Record<string, unknown>?]> = [
      ['not an object', [], 'BAD_REQUEST'],
      ['edges missing', { nodes: [] }, 'BAD_REQUEST', { field: 'edges' }],
      ['unknown field', { nodes: [], edges: [], extra: 1 }, 'BAD_REQUEST', { unknown: ['extra'] }],
      ['bad node id', { nodes: [node('has space')], edges: [] }, 'BAD_REQUEST', { field: 'nodes.0.id' }],
      [
        'position not finite',
        { nodes: [{ id: 'a', position: { x: 'left', y: 0 } }], edges: [] },
        'BAD_REQUEST',
        { field: 'nodes.0.position.x' },
      ],
      ['duplicate node id', { nodes: [node('a'), node('a')], edges: [] }, 'GRAPH_INVALID', { field: 'nodes.1.id', id: 'a' }],
      [
        'duplicate edge id',
        { nodes: [node('a'), node('b'), node('c')], edges: [edge('e', 'a', 'b'), edge('e', 'a', 'c')] },
        'GRAPH_INVALID',
        { field: 'edges.1.id' },
      ],
      [
        'edge to a missing node',
        { nodes: [node('a')], edges: [edge('e', 'a', 'ghost')] },
        'GRAPH_INVALID',
        { field: 'edges.0.target', id: 'ghost' },
      ],
      [
        'edge from a missing node',
        { nodes: [node('a')], edges: [edge('e', 'ghost', 'a')] },
        'GRAPH_INVALID',
        { field: 'edges.0.source', id: 'ghost' },
      ],
      ['self loop', { nodes: [node('a')], edges: [edge('e', 'a', 'a')] }, 'GRAPH_INVALID', { field: 'edges.0' }],
      [
        'two edit parents',
        { nodes: [node('a'), node('b'), node('c')], edges: [edge('e1', 'a', 'c'), edge('e2', 'b', 'c')] },
        'GRAPH_INVALID',
        { field: 'edges.1.target', id: 'c' },
      ],
      [
        'repeated edge',
        { nodes: [node('a'), node('b')], edges: [edge('e1', 'a', 'b', 'reference'), edge('e2', 'a', 'b', 'reference')] },
        'GRAPH_INVALID',
        { field: 'edges.1' },
      ],
      [
        'cycle of edits',
        { nodes: [node('a'), node('b'), node('c')], edges: [edge('e1', 'a', 'b'), edge('e2', 'b', 'c'), edge('e3', 'c', 'a')] },
        'GRAPH_INVALID',
        { field: 'edges', cycle: ['a', 'b', 'c', 'a'] },
      ],
      [
        'cycle through a reference',
        { nodes: [node('a'), node('b')], edges: [edge('e1', 'a', 'b'), edge('e2', 'b', 'a', 'reference')] },
        'GRAPH_INVALID',
        { field: 'edges' },
      ],
      [
        'too many nodes',
        { nodes: Array.from({ length: GRAPH_LIMITS.maxNodes + 1 }, (_, index) => node(`n${index}`)), edges: [] },
        'GRAPH_TOO_LARGE',
        { field: 'nodes', max: GRAPH_LIMITS.maxNodes },
      ],
      [
        'too many edges',
        { nodes: [], edges: Array.from({ length: GRAPH_LIMITS.maxEdges + 1 }, (_, index) => edge(`e${index}`, 'a', 'b')) },
        'GRAPH_TOO_LARGE',
        { field: 'edges', max: GRAPH_LIMITS.maxEdges },
      ],
      [
        'node data too large',
        { nodes: [node('a', 0, 0, { note: 'x'.repeat(GRAPH_LIMITS.maxNodeDataBytes) })], edges: [] },
        'GRAPH_TOO_LARGE',
        { field: 'nodes.0.data', max: GRAPH_LIMITS.maxNodeDataBytes },
      ],
      [
        'graph too large',
        {
          nodes: Array.from({ length: 70 }, (_, index) => node(`n${index}`, 0, 0, { note: 'x'.repeat(GRAPH_LIMITS.maxGraphBytes / 64) })),
          edges: [],
        },
        'GRAPH_TOO_LARGE',
        { max: GRAPH_LIMITS.maxGraphBytes },
      ],
    ];
    for (const [name, body, code, details] of cases) {
      const answer = await put(session.id, body, '"1"');
      expect(answer.body.error?.code, name).toBe(code);
      expect(answer.status, name).toBe(code === 'GRAPH_TOO_LARGE' ? 413 : 400);
      if (details) expect(answer.body.error.details, name).toMatchObject(details);
    }
    expect((await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`)).body).toMatchObject({ version: 1, nodeCount: 0 });
  });

  it('takes a long chain of edits and a forest with reference edges', async () => {
    const session = await create('Chain');
    const length = GRAPH_LIMITS.maxNodes;
    const chain = {
      nodes: Array.from({ length }, (_, index) => node(`n${index}`, 0, index * 10)),
      edges: [
        ...Array.from({ length: length - 1 }, (_, index) => edge(`e${index}`, `n${index}`, `n${index + 1}`)),
        edge('r', 'n0', `n${length - 1}`, 'reference'),
      ],
    };
    const saved = await put(session.id, chain, '"1"');
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ version: 2, nodeCount: length, edgeCount: length });
  });
});
