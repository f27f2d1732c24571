import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/common/errors.js';
import type { VersionedGraph } from '../../src/studio/api/index.js';
import { startDemo, type Demo } from '../../src/demo/demo.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';

// `svc node …` and `svc sessions …` as real processes against a demo studio.

describe('svc node and svc sessions against a demo studio', () => {
  let studio: TestStudio;
  let demo: Demo;
  let work: string;
  let sessionId: string;
  let rootId: string;
  let childId: string;

  beforeAll(async () => {
    const home = makeTempHome();
    demo = await startDemo({ SVC_HOME: home });
    studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
    work = makeTempHome('svc-graph-cli-');
  });
  afterAll(() => studio.stop());

  const svc = (args: string[]) => runSvc([...args, '--server', studio.url], {}, 25_000);
  const json = async (args: string[]) => {
    const result = await svc([...args, '--json']);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };

  it('sessions create and ls', async () => {
    sessionId = (await json(['sessions', 'create', 'Birds'])).id;
    const listed = await json(['sessions', 'ls']);
    expect(listed.sessions.map((session: { id: string }) => session.id)).toContain(sessionId);
  });

  it('node generate: a root in the session, then a child edit of it written with -o and added to the graph', async () => {
    const root = await json(['node', 'generate', 'a blue jay', '--session', sessionId]);
    expect(root).toMatchObject({ sessionId, parentNodeId: null, addedToGraph: false });
    rootId = root.nodeId;

    const out = join(work, 'jay.png');
    const child = await json(['node', 'generate', 'the jay in the rain', '--parent', rootId, '-o', out, '--add-to-graph']);
    expect(child).toMatchObject({ sessionId, parentNodeId: rootId, addedToGraph: true, graphVersion: 2, saved: [out] });
    childId = child.nodeId;
    expect(await sharp(readFileSync(out)).metadata()).toMatchObject({ format: 'png' });
  });

  it('node show names the parent and the session (JSON and text)', async () => {
    expect(await json(['node', 'show', childId])).toMatchObject({
      nodeId: childId,
      parentNodeId: rootId,
      operation: 'edit',
      session: { id: sessionId, title: 'Birds', deleted: false },
    });
    const text = await svc(['node', 'show', childId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`parent   ${rootId}`);
    expect(text.stdout).toContain(`session  Birds (${sessionId})`);

    const unknown = await svc(['node', 'show', 'no-such-node']);
    expect(unknown.code).toBe(EXIT_CODES.bad_request);
    expect(unknown.stderr).toContain('NODE_NOT_FOUND');
  });

  it('graph get -o writes the graph with its version; graph put sends it back and saves', async () => {
    const file = join(work, 'graph.json');
    const got = await json(['sessions', 'graph', 'get', sessionId, '-o', file]);
    expect(got).toMatchObject({ version: 2, saved: file });
    const graph = JSON.parse(readFileSync(file, 'utf8')) as VersionedGraph;
    expect(graph.version).toBe(2);
    expect(graph.nodes.map((node) => node.id)).toEqual([childId]);

    graph.nodes[0].position = { x: 500, y: 500 };
    writeFileSync(file, JSON.stringify(graph));
    const put = await svc(['sessions', 'graph', 'put', sessionId, file]);
    expect(put.code, put.stderr).toBe(0);
    expect(put.stdout).toContain('version 2 → 3');
    expect(await json(['sessions', 'show', sessionId])).toMatchObject({
      version: 3,
      graph: { nodes: [{ id: childId, position: { x: 500, y: 500 } }] },
    });
  });

  it('graph put of a stale file says the graph changed and exits with the conflict code, saving nothing', async () => {
    const file = join(work, 'graph.json');
    // The file still says version 2; the session is at 3.
    const stale = await svc(['sessions', 'graph', 'put', sessionId, file]);
    expect(stale.code).toBe(EXIT_CODES.bad_request);
    expect(stale.stderr).toContain('The graph changed since');
    expect(stale.stderr).toContain('version 3');
    expect(stale.stderr).toContain('GRAPH_VERSION_CONFLICT');

    const noVersion = join(work, 'bare.json');
    writeFileSync(noVersion, JSON.stringify({ nodes: [], edges: [] }));
    const usage = await svc(['sessions', 'graph', 'put', sessionId, noVersion]);
    expect(usage.code).toBe(EXIT_CODES.usage);
    expect(usage.stderr).toContain('has no "version"');
    expect((await json(['sessions', 'show', sessionId])).version).toBe(3);
  });

  it('sessions rename and rm: the images stay in history', async () => {
    expect(await json(['sessions', 'rename', sessionId, 'Songbirds'])).toMatchObject({ title: 'Songbirds', version: 3 });
    const removed = await svc(['sessions', 'rm', sessionId]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('its images stay in history');
    const gone = await svc(['sessions', 'show', sessionId]);
    expect(gone.code).toBe(EXIT_CODES.bad_request);
    expect(gone.stderr).toContain('SESSION_NOT_FOUND');
    const history = await json(['history', 'ls', '--group-by', 'session']);
    expect(history.groups.find((group: { sessionId: string }) => group.sessionId === sessionId)).toMatchObject({
      sessionTitle: 'Songbirds',
      sessionDeleted: true,
      count: 2,
    });
    expect(existsSync(join(work, 'jay.png'))).toBe(true);
  });
});
