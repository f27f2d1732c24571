import { rmSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectEvents, type StreamedEvent } from '../generate/rig.js';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startDemo } from '../../src/demo/demo.js';
import { startStudio } from '../../src/studio/main.js';
import { makeTempHome, startDemoStudio, type TestStudio } from '../helpers/studio.js';
import { runSvc } from '../helpers/svc.js';

// The bar on a demo studio (`svc serve --demo`): the node-graph simulator
// runs in-process with the sample workflow registered, `svc models flow`
// lists it, and a generation returns a real image at the bound size while its
// events show the upstream queue position and each sampler step.

let studio: TestStudio;

beforeAll(async () => {
  studio = await startDemoStudio('svc-flow-demo-');
});
afterAll(() => studio?.stop());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${studio.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** The events of one generation, read from its own stream. */
async function streamed(body: unknown): Promise<StreamedEvent[]> {
  const response = await post('/api/generate', body, { accept: 'text/event-stream' });
  expect(response.status).toBe(200);
  return collectEvents(response, (event) => (event.event === 'done' || event.event === 'error') && !('slot' in event));
}

describe('the flow lane on a demo studio', () => {
  it('is ready, and svc models flow lists the sample workflow', async () => {
    const providers = (await (await fetch(`${studio.url}/api/providers`)).json()) as {
      providers: { id: string; state: string; reason: string }[];
    };
    expect(providers.providers.find((provider) => provider.id === 'flow')).toMatchObject({ state: 'ready' });
    const listed = await runSvc(['models', 'flow', '--json', '--server', studio.url]);
    expect(listed.code, listed.stderr).toBe(0);
    const models = (JSON.parse(listed.stdout) as { models: { target: string; state: string; default: boolean }[] }).models;
    expect(models).toEqual([expect.objectContaining({ target: 'flow/sample', state: 'ready', default: true })]);
    const capabilities = (await (await fetch(`${studio.url}/api/capabilities`)).json()) as {
      providers: { id: string; models?: string[]; defaultModel?: string | null; built?: boolean }[];
      models: { id: string; providers: string[]; options?: { properties: Record<string, unknown> } }[];
    };
    expect(capabilities.providers.find((provider) => provider.id === 'flow')).toMatchObject({
      built: true,
      models: ['sample'],
      defaultModel: 'sample',
    });
    const sample = capabilities.models.find((model) => model.id === 'sample');
    expect(sample?.providers).toEqual(['flow']);
    expect(Object.keys(sample?.options?.properties ?? {})).toEqual(expect.arrayContaining(['KSampler.steps', 'KSampler.cfg', 'seed']));
  });

  it('returns a real image at the bound size, with queue position and step progress on its events', async () => {
    // A first job holds the node-graph server, so the second waits in its queue.
    const first = post('/api/generate', { provider: 'flow', model: 'sample', prompt: 'a blue harbour', options: { 'KSampler.steps': 10 } });
    const events = await streamed({
      provider: 'flow',
      model: 'sample',
      prompt: 'a red kite over green hills',
      size: '768x512',
      options: { 'KSampler.steps': 12, seed: 7 },
    });
    expect((await first).status).toBe(200);
    const done = events.find((event) => event.event === 'done') as unknown as {
      result: {
        provider: string;
        model: string;
        images: { url: string; width: number; height: number }[];
        settings: Record<string, unknown>;
      };
    };
    expect(done, JSON.stringify(events.filter((event) => event.event === 'error'))).toBeDefined();
    expect(done.result).toMatchObject({
      provider: 'flow',
      model: 'sample',
      images: [{ width: 768, height: 512 }],
      settings: { workflow: 'sample', seed: 7 },
    });
    const file = Buffer.from(await (await fetch(`${studio.url}${done.result.images[0].url}`)).arrayBuffer());
    expect(await sharp(file).metadata()).toMatchObject({ width: 768, height: 512, format: 'png' });

    const queued = events.filter((event) => event.event === 'phase' && event.phase === 'queued' && typeof event.queuePosition === 'number');
    expect(queued[0]).toMatchObject({ queuePosition: 1 });
    const steps = events.filter((event) => event.event === 'progress').map((event) => [event.value, event.max]);
    expect(steps).toEqual(Array.from({ length: 12 }, (_, index) => [index + 1, 12]));
    expect(events.filter((event) => event.event === 'partial').length).toBeGreaterThan(0);
    // Queued upstream, then rendering, then saving: in that order.
    const phases = events.filter((event) => event.event === 'phase').map((event) => event.phase);
    expect(phases.indexOf('queued', 1)).toBeLessThan(phases.indexOf('rendering'));
    expect(phases.indexOf('rendering')).toBeLessThan(phases.indexOf('saving'));
  });

  it('svc generate --model flow/<id> --option reaches the workflow', async () => {
    const out = `${studio.home}/cli-flow.png`;
    const run = await runSvc(
      [
        'generate',
        'a small lighthouse',
        '--model',
        'flow/sample',
        '--size',
        '640x384',
        '--option',
        'KSampler.steps=4',
        '--out',
        out,
        '--json',
        '--server',
        studio.url,
      ],
      {},
      30_000,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await sharp(out).metadata()).toMatchObject({ width: 640, height: 384 });
  });

  it('refuses an unknown workflow with FLOW_WORKFLOW_NOT_FOUND and a bad param as a bad request', async () => {
    const unknown = await post('/api/generate', { provider: 'flow', model: 'nope', prompt: 'x' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('FLOW_WORKFLOW_NOT_FOUND');
    const badParam = await post('/api/generate', { provider: 'flow', model: 'sample', prompt: 'x', options: { 'KSampler.steps': 0 } });
    expect(badParam.status).toBe(400);
    const body = (await badParam.json()) as { error: { code: string; details: { field: string } } };
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'options.KSampler.steps' } });
    const unknownParam = await post('/api/generate', { provider: 'flow', model: 'sample', prompt: 'x', options: { 'Nope.steps': 3 } });
    expect(unknownParam.status).toBe(400);
  });
});

describe("the demo and the user's own workflows", () => {
  const shared = makeTempHome('svc-flow-demo-user-');
  afterAll(() => rmSync(shared, { recursive: true, force: true }));
  const env = { SVC_HOME: shared, PATH: process.env.PATH };
  const workflowsOf = async (url: string) =>
    ((await (await fetch(`${url}/api/flow/workflows`)).json()) as { workflows: { id: string; label: string; origin: string }[] }).workflows;

  it('never writes its sample into the database: a workflow "sample" of the user\'s survives a demo run, and none is left behind', async () => {
    // The user's own "sample", on their own server.
    const own = await startStudio({ env, port: 0, descriptor: false });
    const registered = await fetch(`${own.url}/api/flow/workflows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        id: 'sample',
        label: 'Mine',
        origin: 'http://127.0.0.1:9',
        graph: SAMPLE_WORKFLOW.graph,
        bind: SAMPLE_WORKFLOW.bind,
      }),
    });
    expect(registered.status).toBe(201);
    await own.close();

    // A demo on the same state dir runs its own sample (on its simulator)...
    const userDemo = await startDemo(env);
    const demoStudio = await startStudio({ env, port: 0, descriptor: false, demo: userDemo.options, onClose: userDemo.close });
    const during = await workflowsOf(demoStudio.url);
    expect(during).toEqual([
      expect.objectContaining({ id: 'sample', label: 'Sample text-to-image', origin: userDemo.options.upstreams.flow }),
    ]);
    // ...and cannot be registered over without replace, as any registered id.
    const taken = await fetch(`${demoStudio.url}/api/flow/workflows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'sample', graph: SAMPLE_WORKFLOW.graph, bind: SAMPLE_WORKFLOW.bind }),
    });
    expect(taken.status).toBe(409);
    await demoStudio.close();

    // ...while the user's record is as they left it.
    const after = await startStudio({ env, port: 0, descriptor: false });
    try {
      expect(await workflowsOf(after.url)).toEqual([
        expect.objectContaining({ id: 'sample', label: 'Mine', origin: 'http://127.0.0.1:9' }),
      ]);
      expect((await fetch(`${after.url}/api/flow/workflows/sample`, { method: 'DELETE' })).status).toBe(200);
    } finally {
      await after.close();
    }

    // A demo on a state dir without workflows leaves none behind.
    const secondDemo = await startDemo(env);
    const again = await startStudio({ env, port: 0, descriptor: false, demo: secondDemo.options, onClose: secondDemo.close });
    expect((await workflowsOf(again.url)).map((workflow) => workflow.id)).toEqual(['sample']);
    await again.close();
    const last = await startStudio({ env, port: 0, descriptor: false });
    try {
      expect(await workflowsOf(last.url)).toEqual([]);
    } finally {
      await last.close();
    }
  }, 30_000);
});
