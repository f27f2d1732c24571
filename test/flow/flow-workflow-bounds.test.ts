import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOW_WORKFLOW_LIMITS } from '../../src/studio/api/flow.js';
import { openDatabase } from '../../src/studio/store/database.js';
import { SqliteFlowWorkflowRepository } from '../../src/studio/store/flow-workflows.js';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startFlowSimulator, type FlowSimulator } from '../../src/sim/flow/index.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// Issue 45 items 1 and 9: a workflow is bounded (bytes, nodes, depth, values,
// string sizes) when it is registered; catalog reads take summaries that never
// load a graph; a stored workflow over the bounds (an older build took any
// size) is skipped, not loaded; a key a user chose is looked up as an own
// property (a binding to node "__proto__" is a 400, not a 500).

let flow: FlowSimulator;
let studio: TestStudio;

beforeAll(async () => {
  flow = await startFlowSimulator({ stepMs: 1 });
  studio = await startTestStudio({ env: { SVC_FLOW_BASE_URL: flow.url } });
});
afterAll(async () => {
  await studio?.stop();
  await flow?.close();
});

const send = async (method: string, path: string, body?: string) => {
  const response = await studio.request(path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, bytes: text.length, body: JSON.parse(text) as Record<string, any> };
};
const call = (method: string, path: string, body?: unknown) => send(method, path, body === undefined ? undefined : JSON.stringify(body));
const register = (id: string, graph: unknown, extra: Record<string, unknown> = {}) =>
  call('POST', '/api/flow/workflows', { id, graph, bind: SAMPLE_WORKFLOW.bind, ...extra });

describe('workflow bounds', () => {
  it('refuses a 100,000-node workflow with FLOW_WORKFLOW_TOO_LARGE', async () => {
    const graph: Record<string, unknown> = { ...SAMPLE_WORKFLOW.graph };
    for (let index = 0; index < 100_000; index += 1) graph[`n${index}`] = { class_type: 'Note', inputs: { text: 'x' } };
    const answer = await register('many-nodes', graph);
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe('FLOW_WORKFLOW_TOO_LARGE');
  });

  it('refuses a 10 MB workflow (one long string), as an object and as JSON text', async () => {
    const graph = structuredClone(SAMPLE_WORKFLOW.graph) as Record<string, { inputs: Record<string, unknown> }>;
    const first = Object.keys(graph)[0];
    graph[first].inputs.blob = 'x'.repeat(10 * 1024 * 1024);
    for (const sent of [graph, JSON.stringify(graph)]) {
      const answer = await register('huge-string', sent);
      expect(answer.status).toBe(413);
      expect(answer.body.error.code).toBe('FLOW_WORKFLOW_TOO_LARGE');
    }
    // A string just under the bound, in a graph under the byte bound, is taken.
    graph[first].inputs.blob = 'x'.repeat(FLOW_WORKFLOW_LIMITS.maxStringLength - 1024);
    const taken = await register('large-string', graph);
    expect(taken.status).toBe(201);
    expect((await call('DELETE', '/api/flow/workflows/large-string')).status).toBe(200);
  });

  it('refuses a workflow nested 100,000 deep with a 400, whether sent as an object or as JSON text', async () => {
    let deep = '1';
    for (let level = 0; level < 100_000; level += 1) deep = `[${deep}]`;
    const body = `{"id":"deep","bind":${JSON.stringify(SAMPLE_WORKFLOW.bind)},"graph":{"1":{"class_type":"X","inputs":{"v":${deep}}}}}`;
    const asObject = await send('POST', '/api/flow/workflows', body);
    expect(asObject.status).toBe(400);
    expect(asObject.body.error.code).toBe('JSON_TOO_DEEP');
    const asText = await register('deep', `{"1":{"class_type":"X","inputs":{"v":${deep}}}}`);
    expect(asText.status).toBe(413);
    expect(asText.body.error.code).toBe('FLOW_WORKFLOW_TOO_LARGE');
    expect(asText.body.error.details.bound).toBe('depth');
    const inspected = await call('POST', '/api/flow/inspect', { graph: `{"1":{"class_type":"X","inputs":{"v":${deep}}}}` });
    expect(inspected.body.error.code).toBe('FLOW_WORKFLOW_TOO_LARGE');
  });

  it('answers a binding or param naming an inherited key ("__proto__", "constructor") with FLOW_WORKFLOW_BIND_INVALID', async () => {
    for (const node of ['__proto__', 'constructor', 'toString']) {
      const answer = await call('POST', '/api/flow/workflows', {
        id: 'proto',
        graph: SAMPLE_WORKFLOW.graph,
        bind: { ...SAMPLE_WORKFLOW.bind, prompt: { node, input: 'text' } },
      });
      expect(answer.status, node).toBe(400);
      expect(answer.body.error.code).toBe('FLOW_WORKFLOW_BIND_INVALID');
    }
    const promptNode = SAMPLE_WORKFLOW.bind.prompt.node;
    for (const input of ['__proto__', 'constructor', 'hasOwnProperty']) {
      const answer = await call('POST', '/api/flow/workflows', {
        id: 'proto',
        graph: SAMPLE_WORKFLOW.graph,
        bind: { ...SAMPLE_WORKFLOW.bind, prompt: { node: promptNode, input } },
      });
      expect(answer.status, input).toBe(400);
      expect(answer.body.error.code).toBe('FLOW_WORKFLOW_BIND_INVALID');
    }
    const param = await call('POST', '/api/flow/workflows', {
      id: 'proto',
      graph: SAMPLE_WORKFLOW.graph,
      bind: SAMPLE_WORKFLOW.bind,
      params: [{ name: 'x', node: 'constructor', input: 'name', type: 'string' }],
    });
    expect(param.body.error.code).toBe('FLOW_WORKFLOW_BIND_INVALID');
    // A graph given as text can carry a "__proto__" node id: refused by name, never stored half-readable.
    const protoNode = await register(
      'proto',
      `{"__proto__":{"class_type":"X","inputs":{}},${JSON.stringify(SAMPLE_WORKFLOW.graph).slice(1)}`,
    );
    expect(protoNode.status).toBe(400);
    expect(protoNode.body.error.code).toBe('FLOW_WORKFLOW_GRAPH_INVALID');
  });

  it('skips a stored workflow over the bounds (an older build took any size): the catalog stays small and it can be deleted', async () => {
    expect((await register('normal', SAMPLE_WORKFLOW.graph)).status).toBe(201);
    // Written straight into the table, as an older build would have: a 6 MB graph.
    const db = new Database(join(studio.home, 'studio.db'));
    const oversized = { ...SAMPLE_WORKFLOW.graph, big: { class_type: 'Note', inputs: { text: 'x'.repeat(6 * 1024 * 1024) } } };
    db.prepare(
      'INSERT INTO flow_workflows (id, label, origin, media_kind, graph, bind, params, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(
      'old-huge',
      'old-huge',
      flow.url,
      'image',
      JSON.stringify(oversized),
      JSON.stringify(SAMPLE_WORKFLOW.bind),
      '[]',
      Date.now(),
      Date.now(),
    );
    db.close();
    const listed = await call('GET', '/api/flow/workflows');
    expect(listed.status).toBe(200);
    expect(listed.body.workflows.map((workflow: { id: string }) => workflow.id)).toEqual(['normal']);
    const capabilities = await call('GET', '/api/capabilities');
    expect(capabilities.status).toBe(200);
    expect(capabilities.bytes).toBeLessThan(1024 * 1024);
    expect(JSON.stringify(capabilities.body)).not.toContain('old-huge');
    const health = await call('GET', '/api/health');
    expect(health.status).toBe(200);
    expect((await call('DELETE', '/api/flow/workflows/old-huge')).status).toBe(200);
    expect((await call('DELETE', '/api/flow/workflows/normal')).status).toBe(200);
  });
});

describe('the workflow store', () => {
  it('reads summaries without parsing the graph column (a row whose graph is not JSON still summarizes)', () => {
    const home = makeTempHome('svc-flow-store-');
    const db = openDatabase(join(home, 'studio.db'));
    try {
      db.prepare(
        'INSERT INTO flow_workflows (id, label, origin, media_kind, graph, bind, params, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run('unparsed', 'Unparsed', 'http://127.0.0.1:8188', 'image', '{not json', JSON.stringify(SAMPLE_WORKFLOW.bind), '[]', 1, 1);
      const store = new SqliteFlowWorkflowRepository(db);
      expect(store.summaries().map((summary) => summary.id)).toEqual(['unparsed']);
      // The whole record does parse the graph, and drops the row.
      expect(store.list()).toEqual([]);
      expect(store.get('unparsed')).toBeUndefined();
    } finally {
      db.close();
    }
  });
});
