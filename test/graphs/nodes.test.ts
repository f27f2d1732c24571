import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  generationEventPayloads,
  nodeGenerationResult,
  nodeRecord,
  type AssetRecord,
  type GenerationEventName,
  type JobRecord,
  type NodeGenerationResult,
  type NodeRecord,
  type SessionBody,
} from '../../src/studio/api/index.js';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { collectEvents, followEvents, type StreamedEvent } from '../generate/rig.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { call, type ErrorAnswer } from './helpers.js';

// Node generation against a demo studio (every lane on its simulator, over
// real HTTP): the bar, the three deliveries of a node job, adding to
// the graph on request, sessions deleted and renamed under their images, and
// every refusal.

interface Group {
  sessionTitle: string | null;
  sessionId: string | null;
  sessionDeleted: boolean;
  count: number;
  items: AssetRecord[];
  itemsNextCursor: string | null;
}
interface GroupsPage {
  groups: Group[];
  nextCursor: string | null;
}

let studio: TestStudio;
let demo: Demo;

beforeAll(async () => {
  const home = makeTempHome();
  demo = await startDemo({ SVC_HOME: home });
  studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
});
afterAll(() => studio.stop());

const createSession = async (title: string): Promise<SessionBody> =>
  (await call<SessionBody>(studio, 'POST', '/api/sessions', { title })).body;

async function generate(body: Record<string, unknown>): Promise<NodeGenerationResult> {
  const answer = await call<NodeGenerationResult & ErrorAnswer>(studio, 'POST', '/api/node/generate', body);
  expect(answer.status, JSON.stringify(answer.body.error)).toBe(200);
  return nodeGenerationResult.parse(answer.body);
}

/** Every group of groupBy=session, walking the group pages one group at a time. */
async function allGroups(): Promise<Group[]> {
  const groups: Group[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 50; page += 1) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const answer = await call<GroupsPage>(studio, 'GET', `/api/history?groupBy=session&limit=1${query}`);
    expect(answer.status).toBe(200);
    groups.push(...answer.body.groups);
    cursor = answer.body.nextCursor;
    if (!cursor) break;
  }
  return groups;
}

/** The data URLs of the input images the simulator received in the request whose prompt contains `marker`. */
function upstreamInputImages(marker: string): string[] {
  const entry = demo.suite.simulators.responses.simulator.requests().find((request) => JSON.stringify(request.body).includes(marker));
  const input = (entry?.body as { input?: Array<{ content: Array<{ type: string; image_url?: string }> }> } | undefined)?.input ?? [];
  return input.flatMap((message) => message.content.filter((part) => part.type === 'input_image').map((part) => String(part.image_url)));
}

describe('the bar', () => {
  it('a session, a root node, a child edit of it with the parent image as input, both grouped under the session; the child names its parent', async () => {
    const session = await createSession('Fox family');
    // An image from classic generation too, so the session's group is found among others, across group pages.
    expect((await call(studio, 'POST', '/api/generate', { prompt: 'a lone heron' })).status).toBe(200);

    const root = await generate({ prompt: 'a red fox in the snow', sessionId: session.id });
    expect(root).toMatchObject({ parentNodeId: null, sessionId: session.id, addedToGraph: false, graphVersion: null });
    expect(root.asset).toMatchObject({ kind: 'node', sessionId: session.id, sessionTitle: 'Fox family', prompt: 'a red fox in the snow' });
    expect(root.images).toEqual([root.asset]);

    const child = await generate({ prompt: 'the same fox at night [child-edit]', parentNodeId: root.nodeId });
    expect(child).toMatchObject({ parentNodeId: root.nodeId, sessionId: session.id });
    expect(child.nodeId).not.toBe(root.nodeId);

    // The parent's image was the edit's input: the job says so, and the upstream received its bytes.
    const job = await call<JobRecord>(studio, 'GET', `/api/jobs/${child.requestId}`);
    expect(job.body).toMatchObject({
      kind: 'node',
      state: 'succeeded',
      request: { operation: 'edit', inputs: { image: { source: 'history', filename: root.asset.filename } } },
    });
    // The stored result is the node result whole (its node fields too), as the sync answer was.
    expect(job.body.result).toEqual(child);
    const parentBytes = readFileSync(join(studio.ctx.paths.generatedDir, root.asset.filename));
    expect(upstreamInputImages('[child-edit]')).toEqual([`data:image/png;base64,${parentBytes.toString('base64')}`]);
    expect(upstreamInputImages('a red fox in the snow')).toEqual([]);

    const group = (await allGroups()).find((candidate) => candidate.sessionId === session.id);
    expect(group).toMatchObject({ sessionTitle: 'Fox family', sessionDeleted: false, count: 2, itemsNextCursor: null });
    expect(group?.items.map((item) => item.filename)).toEqual([child.asset.filename, root.asset.filename]);

    const stored = await call<NodeRecord>(studio, 'GET', `/api/node/${child.nodeId}`);
    expect(stored.status).toBe(200);
    expect(nodeRecord.parse(stored.body)).toMatchObject({
      nodeId: child.nodeId,
      operation: 'edit',
      parentNodeId: root.nodeId,
      session: { id: session.id, title: 'Fox family', deleted: false },
      requestId: child.requestId,
      prompt: 'the same fox at night [child-edit]',
      provider: child.provider,
      model: child.model,
      settings: child.settings,
      asset: { filename: child.asset.filename, url: child.asset.url, thumbnailUrl: child.asset.thumbnailUrl, state: 'live' },
    });
    expect((await studio.request(stored.body.asset.url)).status).toBe(200);
    expect((await call<NodeRecord>(studio, 'GET', `/api/node/${root.nodeId}`)).body).toMatchObject({
      operation: 'generate',
      parentNodeId: null,
    });

    // The graph is the client's: generating did not change it (no addToGraph).
    expect((await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`)).body).toMatchObject({ version: 1, nodeCount: 0 });
  });
});

describe('one job path', () => {
  it('async: 202, then phase, partial and done for the node on /api/events', async () => {
    const session = await createSession('Async');
    const watcher = new AbortController();
    try {
      const events = await followEvents(studio.url, watcher.signal);
      const accepted = await call(studio, 'POST', '/api/node/generate', {
        prompt: 'an owl at dusk',
        sessionId: session.id,
        async: true,
        requestId: 'node-async-1',
      });
      expect(accepted).toMatchObject({ status: 202, body: { requestId: 'node-async-1', status: 'accepted' } });
      const mine = await events.until('node-async-1');
      for (const event of mine) {
        expect(event.kind).toBe('node');
        expect(generationEventPayloads[event.event as GenerationEventName].safeParse(event).success, event.event).toBe(true);
      }
      const names = mine.map((event) => event.event);
      expect(names[0]).toBe('phase');
      expect(names).toContain('partial');
      expect(names.at(-1)).toBe('done');
      const result = nodeGenerationResult.parse((mine.at(-1) as StreamedEvent & { result: unknown }).result);
      expect(result).toMatchObject({ requestId: 'node-async-1', sessionId: session.id, parentNodeId: null });
      expect((await call<NodeRecord>(studio, 'GET', `/api/node/${result.nodeId}`)).body.session?.id).toBe(session.id);
    } finally {
      watcher.abort();
    }
  });

  it('per-request SSE: the child edit streams its own events, ending with done', async () => {
    const root = await generate({ prompt: 'a paper boat' });
    const response = await studio.request('/api/node/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'the boat on a pond', parentNodeId: root.nodeId, requestId: 'node-sse-1' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = await collectEvents(response);
    expect(events.every((event) => event.requestId === 'node-sse-1' && event.kind === 'node')).toBe(true);
    expect(events.at(-1)?.event).toBe('done');
    const result = nodeGenerationResult.parse((events.at(-1) as StreamedEvent & { result: unknown }).result);
    // A node without a session: its child is sessionless too.
    expect(result).toMatchObject({ parentNodeId: root.nodeId, sessionId: null });
  });
});

describe('adding to the graph', () => {
  it('only when asked: the node (and its edge from a drawn parent) joins the graph and the version goes up', async () => {
    const session = await createSession('Added');
    const root = await generate({ prompt: 'a lighthouse', sessionId: session.id, addToGraph: true, position: { x: 40, y: 80 } });
    expect(root).toMatchObject({ addedToGraph: true, graphVersion: 2 });
    const child = await generate({ prompt: 'the lighthouse in fog', parentNodeId: root.nodeId, addToGraph: true });
    expect(child).toMatchObject({ addedToGraph: true, graphVersion: 3 });
    const untouched = await generate({ prompt: 'the lighthouse at noon', parentNodeId: root.nodeId });
    expect(untouched).toMatchObject({ addedToGraph: false, graphVersion: null });

    const loaded = await call<SessionBody>(studio, 'GET', `/api/sessions/${session.id}`);
    expect(loaded.headers.get('etag')).toBe('"3"');
    expect(loaded.body.graph.nodes).toEqual([
      {
        id: root.nodeId,
        type: 'image',
        position: { x: 40, y: 80 },
        data: expect.objectContaining({ filename: root.asset.filename, prompt: 'a lighthouse' }),
      },
      { id: child.nodeId, type: 'image', position: { x: 40, y: 440 }, data: expect.objectContaining({ filename: child.asset.filename }) },
    ]);
    expect(loaded.body.graph.edges).toEqual([{ id: `edit-${child.nodeId}`, source: root.nodeId, target: child.nodeId, kind: 'edit' }]);

    // A client that still holds version 1 is told its snapshot is stale.
    const stale = await call<ErrorAnswer>(
      studio,
      'PUT',
      `/api/sessions/${session.id}/graph`,
      { nodes: [], edges: [] },
      { 'if-match': '"1"' },
    );
    expect(stale.status).toBe(412);
    expect(stale.body.error.details).toMatchObject({ version: 3 });
  });
});

describe('sessions under their images', () => {
  it('a rename shows in history; a deleted session keeps its images there, grouped under it as deleted, and its nodes answer', async () => {
    const session = await createSession('Before');
    const root = await generate({ prompt: 'a snowy owl', sessionId: session.id });
    await call(studio, 'PATCH', `/api/sessions/${session.id}`, { title: 'After' });
    const bySession = await call<{ items: AssetRecord[] }>(studio, 'GET', `/api/history?sessionId=${session.id}`);
    expect(bySession.body.items.map((item) => [item.filename, item.sessionTitle])).toEqual([[root.asset.filename, 'After']]);
    expect(
      (await call<{ items: AssetRecord[] }>(studio, 'GET', '/api/history?session=After')).body.items.map((item) => item.filename),
    ).toEqual([root.asset.filename]);

    expect((await call(studio, 'DELETE', `/api/sessions/${session.id}`)).status).toBe(200);
    const group = (await allGroups()).find((candidate) => candidate.sessionId === session.id);
    expect(group).toMatchObject({ sessionTitle: 'After', sessionDeleted: true, count: 1 });
    expect((await call<{ items: AssetRecord[] }>(studio, 'GET', `/api/history?sessionId=${session.id}`)).body.items).toHaveLength(1);
    expect((await studio.request(root.asset.url)).status).toBe(200);
    expect((await call<NodeRecord>(studio, 'GET', `/api/node/${root.nodeId}`)).body.session).toEqual({
      id: session.id,
      title: 'After',
      deleted: true,
    });

    // No new node goes into a deleted session, not even as a child of one of its nodes.
    const child = await call<ErrorAnswer>(studio, 'POST', '/api/node/generate', { prompt: 'the owl again', parentNodeId: root.nodeId });
    expect(child.status).toBe(404);
    expect(child.body.error).toMatchObject({ code: 'SESSION_NOT_FOUND', details: { id: session.id, field: 'parentNodeId' } });
  });

  it('a parent whose image left history cannot be edited until the image is restored', async () => {
    const root = await generate({ prompt: 'a glass of water' });
    await call(studio, 'DELETE', `/api/history/${root.asset.filename}`);
    const refused = await call<ErrorAnswer>(studio, 'POST', '/api/node/generate', { prompt: 'ice in it', parentNodeId: root.nodeId });
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({
      code: 'REFERENCE_NOT_FOUND',
      details: { field: 'parentNodeId', nodeId: root.nodeId, filename: root.asset.filename },
    });
    expect((await call<NodeRecord>(studio, 'GET', `/api/node/${root.nodeId}`)).body.asset.state).toBe('deleted');
    await call(studio, 'POST', `/api/history/${root.asset.filename}/restore`);
    expect((await generate({ prompt: 'ice in it', parentNodeId: root.nodeId })).parentNodeId).toBe(root.nodeId);
  });
});

describe('refusals', () => {
  let root: NodeGenerationResult;
  let session: SessionBody;

  beforeAll(async () => {
    session = await createSession('Refusals');
    root = await generate({ prompt: 'a pine cone', sessionId: session.id });
  });

  const refuse = async (body: Record<string, unknown>, status: number, code: string, details?: Record<string, unknown>) => {
    const answer = await call<ErrorAnswer>(studio, 'POST', '/api/node/generate', body);
    expect(answer.status, JSON.stringify(body)).toBe(status);
    expect(answer.body.error.code).toBe(code);
    if (details) expect(answer.body.error.details).toMatchObject(details);
  };

  it('answers each bad request with its code, before any job starts', async () => {
    await refuse({ prompt: 'x', parentNodeId: 'no-such-node' }, 404, 'NODE_NOT_FOUND', { field: 'parentNodeId', nodeId: 'no-such-node' });
    await refuse({ prompt: 'x', parentNodeId: 'not a node id' }, 400, 'BAD_REQUEST', { field: 'parentNodeId' });
    await refuse({ prompt: 'x', sessionId: 'no-such-session' }, 404, 'SESSION_NOT_FOUND', { field: 'sessionId' });
    const other = await createSession('Other');
    await refuse({ prompt: 'x', parentNodeId: root.nodeId, sessionId: other.id }, 400, 'BAD_REQUEST', {
      field: 'sessionId',
      valid: session.id,
    });
    await refuse({ prompt: 'x', addToGraph: true }, 400, 'BAD_REQUEST', { field: 'addToGraph' });
    await refuse({ prompt: 'x', sessionId: session.id, position: { x: 1, y: 2 } }, 400, 'BAD_REQUEST', { field: 'position' });
    await refuse({ prompt: 'x', sessionId: session.id, mask: 'a.png' }, 400, 'BAD_REQUEST', { unknown: ['mask'] });
    await refuse({ prompt: '', sessionId: session.id }, 400, 'BAD_REQUEST', { field: 'prompt' });
    await refuse({ prompt: 'x', async: true }, 400, 'REQUEST_ID_REQUIRED');
    // Nothing of these reached a job.
    expect((await call<{ jobs: unknown[] }>(studio, 'GET', '/api/inflight')).body.jobs).toEqual([]);
  });

  it('a lane that cannot edit answers its own code for a child; the parent counts among the lane input images', async () => {
    await refuse({ prompt: 'x', parentNodeId: root.nodeId, provider: 'epsilon' }, 400, 'EPSILON_EDIT_UNSUPPORTED');
    // gamma takes 10 input images: with the parent's, 10 references are one too many; 9 go.
    const references = (count: number) => Array.from({ length: count }, () => root.asset.filename);
    await refuse({ prompt: 'x', parentNodeId: root.nodeId, provider: 'gamma', references: references(10) }, 400, 'GAMMA_REF_TOO_MANY', {
      max: 9,
      got: 10,
    });
    await refuse({ prompt: 'x', provider: 'gamma', sessionId: session.id, references: references(11) }, 400, 'GAMMA_REF_TOO_MANY', {
      max: 10,
      got: 11,
    });
    const child = await generate({ prompt: 'the cone, sketched', parentNodeId: root.nodeId, provider: 'gamma', references: references(9) });
    expect(child).toMatchObject({ provider: 'gamma', parentNodeId: root.nodeId });
  });

  it('GET /api/node/:nodeId: NODE_NOT_FOUND for an unknown node, BAD_REQUEST for an id that is not one', async () => {
    const unknown = await call<ErrorAnswer>(studio, 'GET', '/api/node/no-such-node');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'NODE_NOT_FOUND', details: { nodeId: 'no-such-node' } });
    for (const id of [encodeURIComponent('../etc/passwd'), encodeURIComponent('a b'), '.hidden']) {
      const bad = await call<ErrorAnswer>(studio, 'GET', `/api/node/${id}`);
      expect(bad.status, id).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'nodeId' } });
    }
  });
});
