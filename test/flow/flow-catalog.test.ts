import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateSync } from 'node:zlib';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startFlowSimulator, type FlowSimulator } from '../../src/sim/flow/index.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';

// The workflow catalog over HTTP (contract: flow-workflow-catalog §1–2):
// inspect, register, list with health, delete, probe, and every validation
// code; the origin rule; UI-format graphs refused with an instruction; PNGs
// carrying a graph; the lane's readiness from the catalog and the servers.

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

const call = async (method: string, path: string, body?: unknown) => {
  const response = await studio.request(path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // The answers are read field by field as the tests need them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const graph = SAMPLE_WORKFLOW.graph;
const bind = SAMPLE_WORKFLOW.bind;

/** A PNG with text chunks (tEXt, and zTXt for the keywords in `compressed`). */
async function pngWith(texts: Record<string, string>, compressed: string[] = []): Promise<Buffer> {
  const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#336699' } })
    .png()
    .toBuffer();
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, tail]);
  };
  const chunks = Object.entries(texts).map(([keyword, text]) =>
    compressed.includes(keyword)
      ? chunk('zTXt', Buffer.concat([Buffer.from(`${keyword}\0\0`, 'latin1'), deflateSync(Buffer.from(text))]))
      : chunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1')),
  );
  // After the signature and IHDR (8 + 25 bytes).
  return Buffer.concat([png.subarray(0, 33), ...chunks, png.subarray(33)]);
}

describe('the flow workflow catalog', () => {
  it('reports the lane disconnected while no workflow is registered', async () => {
    const { body } = await call('GET', '/api/providers');
    expect(body.providers.find((provider: { id: string }) => provider.id === 'flow')).toMatchObject({
      state: 'disconnected',
      reason: expect.stringContaining('No workflow registered'),
    });
    const models = await call('POST', '/api/generate', { provider: 'flow', prompt: 'x' });
    expect(models).toMatchObject({ status: 400, body: { error: { code: 'INVALID_IMAGE_MODEL' } } });
  });

  it('inspects a graph: ambiguous prompt candidates, the output, params typed by the server', async () => {
    const { status, body } = await call('POST', '/api/flow/inspect', { graph });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, mediaKind: 'image', needsConfirmation: true });
    expect(body.nodes).toHaveLength(7);
    const prompt = body.candidates.filter((candidate: { field: string }) => candidate.field === 'prompt');
    expect(prompt).toEqual([
      expect.objectContaining({ node: '6', input: 'text', unambiguous: false }),
      expect.objectContaining({ node: '7', input: 'text', unambiguous: false }),
    ]);
    expect(body.candidates).toContainEqual(
      expect.objectContaining({ field: 'output', node: '9', classType: 'SaveImage', unambiguous: true }),
    );
    expect(body.candidates).toContainEqual(expect.objectContaining({ field: 'seed', node: '3', input: 'seed', unambiguous: true }));
    expect(body.bind).toMatchObject({ output: { node: '9' }, width: { node: '5', input: 'width' }, seed: { node: '3', input: 'seed' } });
    expect(body.bind.prompt).toBeUndefined();
    const steps = body.params.find((param: { name: string }) => param.name === 'KSampler.steps');
    expect(steps).toEqual({ name: 'KSampler.steps', node: '3', input: 'steps', type: 'integer', default: 20, min: 1, max: 10000 });
    expect(body.params.find((param: { name: string }) => param.name === 'KSampler.sampler_name')).toMatchObject({
      type: 'string',
      choices: expect.arrayContaining(['euler', 'dpmpp_2m']),
    });
    // The two text encoders' texts would share a name: each is named by its node.
    expect(body.params.map((param: { name: string }) => param.name)).toEqual(
      expect.arrayContaining(['CLIPTextEncode.6.text', 'CLIPTextEncode.7.text']),
    );
  });

  it('refuses a UI-format graph with how to export the API format', async () => {
    const ui = { last_node_id: 9, nodes: [{ id: 3, type: 'KSampler', widgets_values: [1, 'fixed', 20] }], links: [] };
    for (const [path, request] of [
      ['/api/flow/inspect', { graph: ui }],
      ['/api/flow/workflows', { id: 'ui', graph: ui, bind }],
    ] as const) {
      const { status, body } = await call('POST', path, request);
      expect(status).toBe(400);
      expect(body.error.code).toBe('FLOW_WORKFLOW_GRAPH_INVALID');
      expect(body.error.message).toMatch(/UI format.*Save \(API Format\)/);
    }
    const empty = await call('POST', '/api/flow/inspect', { graph: { a: { nope: 1 } } });
    expect(empty).toMatchObject({ status: 400, body: { error: { code: 'FLOW_WORKFLOW_GRAPH_INVALID' } } });
    const both = await call('POST', '/api/flow/inspect', {});
    expect(both).toMatchObject({ status: 400, body: { error: { code: 'FLOW_WORKFLOW_GRAPH_INVALID' } } });
  });

  it('reads the graph a PNG carries, and refuses PNGs with only the UI format or none', async () => {
    const withPrompt = await pngWith({ prompt: JSON.stringify(graph), workflow: '{"nodes":[]}' }, ['prompt']);
    const inspected = await call('POST', '/api/flow/inspect', { pngBase64: withPrompt.toString('base64') });
    expect(inspected.status).toBe(200);
    expect(inspected.body.nodes).toHaveLength(7);
    // Judged by the bytes, not the field: a PNG sent as `graph` is read as one.
    expect((await call('POST', '/api/flow/inspect', { graph: withPrompt.toString('base64') })).status).toBe(200);
    const uiOnly = await call('POST', '/api/flow/inspect', { pngBase64: (await pngWith({ workflow: '{"nodes":[]}' })).toString('base64') });
    expect(uiOnly).toMatchObject({
      status: 400,
      body: { error: { code: 'FLOW_WORKFLOW_GRAPH_INVALID', message: expect.stringContaining('API Format') } },
    });
    const none = await call('POST', '/api/flow/inspect', { pngBase64: (await pngWith({})).toString('base64') });
    expect(none).toMatchObject({
      status: 400,
      body: { error: { code: 'FLOW_WORKFLOW_GRAPH_INVALID', message: expect.stringContaining('no workflow metadata') } },
    });
    const notPng = await call('POST', '/api/flow/inspect', { pngBase64: Buffer.from('GIF89a....').toString('base64') });
    expect(notPng).toMatchObject({ status: 400, body: { error: { code: 'FLOW_WORKFLOW_GRAPH_INVALID' } } });
  });

  it('enforces the origin rule: http on a loopback name with an explicit port, nothing else', async () => {
    const refused = [
      'http://192.168.1.5:8188',
      'http://127.1:8188',
      'http://2130706433:8188',
      'https://127.0.0.1:8188',
      'http://127.0.0.1',
      'http://user@127.0.0.1:8188',
      'http://127.0.0.1:8188/api',
      'http://127.0.0.1:8188?x=1',
      'http://example.com:8188',
      'http://127.0.0.1:0',
      'http://127.0.0.1:70000',
    ];
    for (const origin of refused) {
      const { status, body } = await call('POST', '/api/flow/workflows', { id: 'remote', origin, graph, bind });
      expect({ origin, status, code: body.error?.code }).toEqual({ origin, status: 400, code: 'FLOW_URL_NOT_LOCAL' });
    }
    expect(await call('POST', '/api/flow/probe', { origin: 'http://10.0.0.1:8188' })).toMatchObject({
      status: 400,
      body: { error: { code: 'FLOW_URL_NOT_LOCAL' } },
    });
    const localhost = await call('POST', '/api/flow/probe', { origin: 'http://LOCALHOST:1/' });
    expect(localhost.body).toMatchObject({ ok: true, origin: 'http://localhost:1', health: { ok: false } });
  });

  it('registers, lists with health, refuses a taken id, replaces, deletes', async () => {
    const created = await call('POST', '/api/flow/workflows', { id: 'portrait', label: 'Portrait', graph, bind });
    expect(created.status).toBe(201);
    expect(created.body.workflow).toMatchObject({ id: 'portrait', label: 'Portrait', origin: flow.url, mediaKind: 'image', bind });
    expect(created.body.workflow.params.map((param: { name: string }) => param.name)).toEqual(
      expect.arrayContaining(['KSampler.steps', 'KSampler.cfg', 'CheckpointLoaderSimple.ckpt_name']),
    );
    expect(created.body.workflow.params.map((param: { name: string }) => param.name)).not.toContain('CLIPTextEncode.text');

    const taken = await call('POST', '/api/flow/workflows', { id: 'portrait', graph, bind });
    expect(taken).toMatchObject({ status: 409, body: { error: { code: 'FLOW_WORKFLOW_ID_TAKEN' } } });
    const replaced = await call('POST', '/api/flow/workflows', { id: 'portrait', label: 'Portrait 2', graph, bind, replace: true });
    expect(replaced.status).toBe(201);
    expect(replaced.body.workflow).toMatchObject({ label: 'Portrait 2', createdAt: created.body.workflow.createdAt });

    const listed = await call('GET', '/api/flow/workflows');
    expect(listed.body.workflows).toEqual([expect.objectContaining({ id: 'portrait', health: { ok: true, version: '0.3.60-sim' } })]);
    const providers = await call('GET', '/api/providers');
    expect(providers.body.providers.find((provider: { id: string }) => provider.id === 'flow')).toMatchObject({ state: 'ready' });

    expect(await call('DELETE', '/api/flow/workflows/portrait')).toEqual({ status: 200, body: { ok: true, id: 'portrait' } });
    expect(await call('DELETE', '/api/flow/workflows/portrait')).toMatchObject({
      status: 404,
      body: { error: { code: 'FLOW_WORKFLOW_NOT_FOUND' } },
    });
  });

  it('answers each validation code', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ id: 'Bad Id', graph, bind }, 'FLOW_WORKFLOW_ID_INVALID'],
      [{ id: '-x', graph, bind }, 'FLOW_WORKFLOW_ID_INVALID'],
      [{ id: 'x'.repeat(65), graph, bind }, 'FLOW_WORKFLOW_ID_INVALID'],
      [{ id: 'nobind', graph }, 'FLOW_WORKFLOW_BIND_INVALID'],
      [{ id: 'missing', graph, bind: { ...bind, seed: { node: '42', input: 'seed' } } }, 'FLOW_WORKFLOW_BIND_INVALID'],
      [{ id: 'link', graph, bind: { ...bind, prompt: { node: '3', input: 'positive' } } }, 'FLOW_WORKFLOW_BIND_INVALID'],
      [{ id: 'noinput', graph, bind: { ...bind, prompt: { node: '6', input: 'txt' } } }, 'FLOW_WORKFLOW_BIND_INVALID'],
      [{ id: 'nooutput', graph, bind: { prompt: bind.prompt } }, 'FLOW_WORKFLOW_BIND_INVALID'],
      [{ id: 'kind', graph, bind, mediaKind: 'audio' }, 'FLOW_WORKFLOW_MEDIA_KIND_INVALID'],
      [{ id: 'kind', graph, bind, mediaKind: 'video' }, 'FLOW_WORKFLOW_MEDIA_KIND_MISMATCH'],
    ];
    for (const [body, code] of cases) {
      const answer = await call('POST', '/api/flow/workflows', body);
      expect({ id: body.id, status: answer.status, code: answer.body.error?.code }).toEqual({ id: body.id, status: 400, code });
    }
    // Without bind, a registration says which fields need a choice and offers the candidates.
    const unbound = await call('POST', '/api/flow/workflows', { id: 'nobind', graph });
    expect(unbound.body.error.details).toMatchObject({
      missing: ['prompt'],
      candidates: [expect.objectContaining({ node: '6' }), expect.objectContaining({ node: '7' })],
    });
    expect((await call('GET', '/api/flow/workflows')).body.workflows).toEqual([]);
  });

  it('reports disconnected with the reason once the node-graph server stops', async () => {
    const second = await startFlowSimulator();
    expect((await call('POST', '/api/flow/workflows', { id: 'gone', origin: second.url, graph, bind })).status).toBe(201);
    expect((await call('POST', '/api/flow/probe', { origin: second.url })).body.health).toMatchObject({ ok: true });
    await second.close();
    const probe = await call('POST', '/api/flow/probe', { origin: second.url });
    expect(probe).toMatchObject({ status: 200, body: { ok: true, health: { ok: false, reason: expect.any(String) } } });
    // The health is kept a few seconds; a fresh probe above refreshed it.
    const providers = await call('GET', '/api/providers');
    expect(providers.body.providers.find((provider: { id: string }) => provider.id === 'flow')).toMatchObject({
      state: 'disconnected',
      reason: expect.stringContaining(second.url),
    });
    const generated = await call('POST', '/api/generate', { provider: 'flow', model: 'gone', prompt: 'x' });
    expect(generated).toMatchObject({ status: 502, body: { error: { code: 'FLOW_OFFLINE' } } });
    expect((await call('DELETE', '/api/flow/workflows/gone')).status).toBe(200);
  });

  it('svc flow workflows add, ls, inspect, probe and rm', async () => {
    const file = join(studio.home, 'sample-api.json');
    writeFileSync(file, JSON.stringify(graph));
    const server = ['--server', studio.url];
    const inspected = await runSvc(['flow', 'workflows', 'inspect', file, ...server]);
    expect(inspected.code, inspected.stderr).toBe(0);
    expect(inspected.stdout).toMatch(/prompt: node 6\.text \(CLIPTextEncode, "Positive"\) ambiguous/);
    const ambiguous = await runSvc(['flow', 'workflows', 'add', file, '--id', 'cli', ...server]);
    expect(ambiguous.code).not.toBe(0);
    expect(ambiguous.stderr).toMatch(/FLOW_WORKFLOW_BIND_INVALID|prompt/);
    // The studio's own answer for a registration it must infer: which field to choose, and why.
    expect(ambiguous.stderr).toContain('Choose the prompt binding: several nodes qualify');
    const added = await runSvc([
      'flow',
      'workflows',
      'add',
      file,
      '--id',
      'cli',
      '--bind',
      'prompt=6.text',
      '--bind',
      'negativePrompt=7.text',
      '--json',
      ...server,
    ]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).workflow.bind).toMatchObject({
      prompt: { node: '6', input: 'text' },
      negativePrompt: { node: '7', input: 'text' },
      output: { node: '9' },
    });
    const listed = await runSvc(['flow', 'workflows', 'ls', ...server]);
    expect(listed.stdout).toMatch(/flow\/cli\s+image\s+http:\/\/127\.0\.0\.1:\d+\s+up/);
    const models = await runSvc(['models', 'flow', ...server]);
    expect(models.stdout).toContain('flow/cli');
    const probe = await runSvc(['flow', 'workflows', 'probe', ...server]);
    expect(probe.stdout).toMatch(/up \(0\.3\.60-sim\)/);
    const badOrigin = await runSvc(['flow', 'workflows', 'probe', 'http://10.1.1.1:80', ...server]);
    expect(badOrigin.code).not.toBe(0);
    expect(badOrigin.stderr).toContain('FLOW_URL_NOT_LOCAL');
    const removed = await runSvc(['flow', 'workflows', 'rm', 'cli', ...server]);
    expect(removed.code, removed.stderr).toBe(0);
    const again = await runSvc(['flow', 'workflows', 'rm', 'cli', ...server]);
    expect(again.stderr).toContain('FLOW_WORKFLOW_NOT_FOUND');
  });
});
