import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startFlowSimulator, type FlowSimulator } from '../../src/sim/flow/index.js';
import { startTestStudio, type TestStudio } from '../helpers/studio.js';

// The flow lane's jobs over HTTP against two node-graph simulators on two
// ports: injection, the reference upload, cancel (queue delete when waiting,
// interrupt when running), every failure code of contract §3, a dropped
// WebSocket, the deadline.

let fast: FlowSimulator;
let slow: FlowSimulator;
let studio: TestStudio;

beforeAll(async () => {
  fast = await startFlowSimulator({ stepMs: 1 });
  slow = await startFlowSimulator({ stepMs: 40 });
  studio = await startTestStudio({ env: { SVC_FLOW_BASE_URL: fast.url } });
  const register = (body: Record<string, unknown>) =>
    studio.request('/api/flow/workflows', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const { graph, bind } = SAMPLE_WORKFLOW;
  const registered = await Promise.all([
    register({ id: 'fast', graph, bind }),
    register({ id: 'slow', origin: slow.url, graph, bind }),
    // No negative prompt binding, and a checkpoint the server does not have.
    register({
      id: 'broken',
      graph: { ...graph, '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'missing.safetensors' } } },
      bind: { prompt: bind.prompt, output: bind.output },
    }),
    // Image to image: a loaded image, inverted, saved (no latent: the image's own size).
    register({
      id: 'invert',
      graph: {
        '1': { class_type: 'LoadImage', inputs: { image: 'placeholder.png' } },
        '2': { class_type: 'ImageInvert', inputs: { image: ['1', 0] } },
        '3': { class_type: 'SaveImage', inputs: { images: ['2', 0], filename_prefix: 'inv' } },
        '4': { class_type: 'CLIPTextEncode', inputs: { text: '', clip: ['5', 1] } },
        '5': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sim-base-1.5.safetensors' } },
      },
      bind: { prompt: { node: '4', input: 'text' }, refImage: { node: '1', input: 'image' }, output: { node: '3' } },
    }),
  ]);
  for (const response of registered) expect(response.status, await response.clone().text()).toBe(201);
});
afterAll(async () => {
  await studio?.stop();
  await Promise.all([fast?.close(), slow?.close()]);
});

const generate = async (body: Record<string, unknown>) => {
  const response = await studio.request('/api/generate', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'flow', ...body }),
  });
  // The answers are read field by field as the tests need them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};
const startAsync = async (body: Record<string, unknown>): Promise<string> => {
  const requestId = randomUUID();
  const { status } = await generate({ ...body, requestId, async: true });
  expect(status).toBe(202);
  return requestId;
};
const jobOf = async (requestId: string) =>
  (await (await studio.request(`/api/jobs/${requestId}`)).json()) as {
    state: string;
    error?: { code: string };
    cancelConfirmed?: boolean | null;
  };

async function until<T>(what: string, probe: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
const ended = (requestId: string) =>
  until(`job ${requestId} to end`, async () => {
    const job = await jobOf(requestId);
    return ['succeeded', 'failed', 'cancelled'].includes(job.state) ? job : undefined;
  });

describe('flow jobs', () => {
  it('injects prompt, negative prompt, size, seed and params into the graph the server runs', async () => {
    const { status, body } = await generate({
      model: 'fast',
      prompt: 'a yellow boat',
      negativePrompt: 'fog',
      size: '320x256',
      options: { seed: 99, 'KSampler.steps': 3, 'KSampler.sampler_name': 'dpmpp_2m' },
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.images[0]).toMatchObject({ width: 320, height: 256, format: 'png' });
    const submitted = fast.simulator.lastRequest({ route: 'POST /prompt' })?.body as {
      prompt: Record<string, { inputs: Record<string, unknown> }>;
      client_id: string;
      prompt_id: string;
    };
    expect(submitted.prompt['6'].inputs.text).toBe('a yellow boat');
    expect(submitted.prompt['7'].inputs.text).toBe('fog');
    expect(submitted.prompt['5'].inputs).toMatchObject({ width: 320, height: 256 });
    expect(submitted.prompt['3'].inputs).toMatchObject({ seed: 99, steps: 3, sampler_name: 'dpmpp_2m', cfg: 7 });
    expect(submitted.client_id).toMatch(/^svc-[0-9a-f]{24}$/);
    expect(body.settings).toMatchObject({ workflow: 'fast', promptId: submitted.prompt_id, origin: fast.url });
    // The stored graph is untouched.
    const listed = (await (await studio.request('/api/flow/workflows')).json()) as {
      workflows: { id: string; graph: Record<string, { inputs: Record<string, unknown> }> }[];
    };
    expect(listed.workflows.find((workflow) => workflow.id === 'fast')?.graph['6'].inputs.text).toBe('a lighthouse at dusk');
  });

  it('runs on two servers side by side, one shared socket each', async () => {
    const [a, b] = await Promise.all([
      generate({ model: 'fast', prompt: 'one', options: { 'KSampler.steps': 2 } }),
      generate({ model: 'slow', prompt: 'two', options: { 'KSampler.steps': 2 } }),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.settings.origin).toBe(fast.url);
    expect(b.body.settings.origin).toBe(slow.url);
    const many = await Promise.all(
      Array.from({ length: 4 }, (_, index) => generate({ model: 'fast', prompt: `many ${index}`, options: { 'KSampler.steps': 2 } })),
    );
    expect(many.map((result) => result.status)).toEqual([200, 200, 200, 200]);
    expect(fast.sockets()).toBe(1);
  });

  it('uploads the reference into the refImage binding (an edit prefixes the prompt)', async () => {
    const reference = await sharp({ create: { width: 200, height: 120, channels: 3, background: '#ff0000' } })
      .png()
      .toBuffer();
    const { status, body } = await generate({
      model: 'invert',
      prompt: 'invert it',
      references: [`data:image/png;base64,${reference.toString('base64')}`],
    });
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.images[0]).toMatchObject({ width: 200, height: 120 });
    const upload = fast.simulator.lastRequest({ route: 'POST /upload/image' });
    const uploaded = upload?.body as { fields: Record<string, string>; files: { name: string; filename: string; size: number }[] };
    expect(uploaded.fields).toMatchObject({ type: 'input', overwrite: 'false' });
    expect(uploaded.files).toEqual([
      expect.objectContaining({ name: 'image', filename: expect.stringMatching(/^svc_\d+_[0-9a-f]{8}\.png$/), size: reference.length }),
    ]);
    const submitted = fast.simulator.lastRequest({ route: 'POST /prompt' })?.body as {
      prompt: Record<string, { inputs: Record<string, unknown> }>;
    };
    expect(submitted.prompt['1'].inputs.image).toBe(uploaded.files[0].filename);
    expect(submitted.prompt['4'].inputs.text).toBe('invert it');
    // An edit goes the same way, its prompt prefixed.
    const edit = await studio.request('/api/edit', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        provider: 'flow',
        model: 'invert',
        prompt: 'make it blue',
        image: `data:image/png;base64,${reference.toString('base64')}`,
      }),
    });
    expect(edit.status, await edit.clone().text()).toBe(200);
    const edited = fast.simulator.lastRequest({ route: 'POST /prompt' })?.body as {
      prompt: Record<string, { inputs: Record<string, unknown> }>;
    };
    expect(edited.prompt['4'].inputs.text).toBe('Edit this image: make it blue');
    // A reference on a workflow without a refImage binding is refused, not dropped.
    const refused = await generate({ model: 'fast', prompt: 'x', references: [`data:image/png;base64,${reference.toString('base64')}`] });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: 'FLOW_WORKFLOW_BIND_INVALID' } } });
  });

  it('cancelling a running job interrupts it on the server', async () => {
    const requestId = await startAsync({ model: 'slow', prompt: 'long one', options: { 'KSampler.steps': 200 } });
    const running = await until('the prompt to run', () => slow.executor.queue().queue_running[0] as unknown[] | undefined);
    await studio.request(`/api/inflight/${requestId}`, { method: 'DELETE' });
    const job = await ended(requestId);
    expect(job.state).toBe('cancelled');
    await until('the interrupt', () => slow.executor.interrupts.includes(running[1] as string));
    const interrupt = slow.simulator.lastRequest({ route: 'POST /interrupt' });
    expect(interrupt?.body).toEqual({ prompt_id: running[1] });
    expect(job.cancelConfirmed).toBe(true);
  });

  it('cancelling a waiting job deletes it from the server queue', async () => {
    const holder = await startAsync({ model: 'slow', prompt: 'holder', options: { 'KSampler.steps': 60 } });
    await until('the holder to run', () => slow.executor.queue().queue_running.length === 1);
    const waiting = await startAsync({ model: 'slow', prompt: 'waiter', options: { 'KSampler.steps': 2 } });
    const pending = await until('the waiter to queue', () => slow.executor.queue().queue_pending[0] as unknown[] | undefined);
    await studio.request(`/api/inflight/${waiting}`, { method: 'DELETE' });
    expect((await ended(waiting)).state).toBe('cancelled');
    await until('the queue delete', () => slow.executor.queue().queue_pending.length === 0);
    const deletes = slow.simulator.requests({ route: 'POST /queue' }).map((entry) => entry.body);
    expect(deletes).toContainEqual({ delete: [pending[1]] });
    await studio.request(`/api/inflight/${holder}`, { method: 'DELETE' });
    await ended(holder);
  });

  it('answers the failure codes of the run', async () => {
    const failed = await generate({ model: 'fast', prompt: 'boom [sim:fail]', options: { 'KSampler.steps': 4 } });
    expect(failed).toMatchObject({
      status: 502,
      body: { error: { code: 'FLOW_EXECUTION_FAILED', message: expect.stringContaining('Simulated sampler failure') } },
    });
    const noImage = await generate({ model: 'fast', prompt: 'empty [sim:no-output]', options: { 'KSampler.steps': 1 } });
    expect(noImage).toMatchObject({ status: 502, body: { error: { code: 'FLOW_NO_IMAGE' } } });
    const notImage = await generate({ model: 'fast', prompt: 'junk [sim:not-image]', options: { 'KSampler.steps': 1 } });
    expect(notImage).toMatchObject({ status: 502, body: { error: { code: 'FLOW_IMAGE_INVALID' } } });
    const rejected = await generate({ model: 'broken', prompt: 'x' });
    expect(rejected).toMatchObject({
      status: 502,
      body: { error: { code: 'FLOW_SUBMIT_REJECTED', details: { upstreamStatus: 400, nodes: ['4'] } } },
    });
    expect(rejected.body.error.message).toContain('missing.safetensors');
    const negative = await generate({ model: 'broken', prompt: 'x', negativePrompt: 'y' });
    expect(negative).toMatchObject({
      status: 400,
      body: { error: { code: 'FLOW_WORKFLOW_BIND_INVALID', details: { bindField: 'negativePrompt' } } },
    });
    const size = await generate({ model: 'broken', prompt: 'x', size: '512x512' });
    expect(size).toMatchObject({ status: 400, body: { error: { code: 'FLOW_WORKFLOW_BIND_INVALID' } } });
    fast.simulator.fault('GET /view', { status: 500 });
    const download = await generate({ model: 'fast', prompt: 'x', options: { 'KSampler.steps': 1 } });
    expect(download).toMatchObject({ status: 502, body: { error: { code: 'FLOW_DOWNLOAD_FAILED' } } });
  });

  it("keeps a refusal's words whole and names only the nodes the server named", async () => {
    // A server message with a tab in it (a formatted detail) and no node errors.
    fast.simulator.fault('POST /prompt', {
      status: 400,
      body: {
        error: { type: 'prompt_outputs_failed_validation', message: 'Prompt outputs failed validation', details: 'cfg:\t999 too large' },
        node_errors: {},
      },
    });
    const refused = await generate({ model: 'fast', prompt: 'x', options: { 'KSampler.steps': 1 } });
    expect(refused).toMatchObject({ status: 502, body: { error: { code: 'FLOW_SUBMIT_REJECTED', details: { upstreamStatus: 400 } } } });
    expect(refused.body.error.details.nodes).toBeUndefined();
    expect(refused.body.error.message).toContain('999 too large');
  });

  it('fails a prompt that vanished from the server', async () => {
    const holder = await startAsync({ model: 'slow', prompt: 'holder', options: { 'KSampler.steps': 80 } });
    await until('the holder to run', () => slow.executor.queue().queue_running.length === 1);
    const lost = await startAsync({ model: 'slow', prompt: 'lost', options: { 'KSampler.steps': 2 } });
    await until('the job to queue', () => slow.executor.queue().queue_pending.length === 1);
    // Someone clears the server's queue behind the studio's back.
    await fetch(`${slow.url}/queue`, { method: 'POST', body: JSON.stringify({ clear: true }) });
    const job = await ended(lost);
    expect(job).toMatchObject({ state: 'failed', error: { code: 'FLOW_EXECUTION_FAILED' } });
    await studio.request(`/api/inflight/${holder}`, { method: 'DELETE' });
    await ended(holder);
  });

  it('delivers through a dropped WebSocket (reconnect, then history)', async () => {
    const requestId = await startAsync({ model: 'slow', prompt: 'blip', options: { 'KSampler.steps': 30 } });
    await until('the prompt to run', () => slow.executor.queue().queue_running.length === 1);
    const before = slow.connections();
    slow.dropSockets();
    const job = await ended(requestId);
    expect(job.state).toBe('succeeded');
    expect(slow.connections()).toBeGreaterThan(before);
  });
});

describe('the flow deadline', () => {
  let timed: TestStudio;
  afterAll(async () => timed?.stop());

  it('ends a job past SVC_FLOW_TIMEOUT_MS with FLOW_TIMEOUT and cancels the prompt', async () => {
    timed = await startTestStudio({ env: { SVC_FLOW_BASE_URL: slow.url, SVC_FLOW_TIMEOUT_MS: '600' } });
    const registered = await timed.request('/api/flow/workflows', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'slow', graph: SAMPLE_WORKFLOW.graph, bind: SAMPLE_WORKFLOW.bind }),
    });
    expect(registered.status).toBe(201);
    const interruptsBefore = slow.executor.interrupts.length;
    const response = await timed.request('/api/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'flow', model: 'slow', prompt: 'too long', options: { 'KSampler.steps': 500 } }),
    });
    expect(response.status).toBe(504);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('FLOW_TIMEOUT');
    await until('the interrupt', () => slow.executor.interrupts.length > interruptsBefore);
  });
});
