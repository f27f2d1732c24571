import sharp from 'sharp';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_WORKFLOW } from '../../src/demo/sample-workflow.js';
import { startFlowSimulator, type FlowSimulator } from '../../src/sim/flow/index.js';

// The node-graph simulator against its contract (flow-node-graph-queue), as a
// client that speaks the protocol directly: validation answers, the message
// order on the WebSocket, binary previews, the queue, interrupt, files.

let sim: FlowSimulator;
let other: FlowSimulator;

beforeAll(async () => {
  sim = await startFlowSimulator({ stepMs: 5 });
  other = await startFlowSimulator({ stepMs: 5 });
});
afterAll(async () => {
  await Promise.all([sim?.close(), other?.close()]);
});

const postJson = (url: string, body: unknown) => fetch(url, { method: 'POST', body: JSON.stringify(body) });
type Frame = { type: string; data: Record<string, unknown> } | { binary: Buffer };

async function connect(base: string, clientId: string): Promise<{ socket: WebSocket; frames: Frame[] }> {
  const socket = new WebSocket(`${base.replace('http', 'ws')}/ws?clientId=${clientId}`);
  const frames: Frame[] = [];
  socket.on('message', (data: Buffer, binary: boolean) => frames.push(binary ? { binary: data } : (JSON.parse(data.toString()) as Frame)));
  await new Promise((resolve) => socket.once('open', resolve));
  return { socket, frames };
}

async function until(probe: () => boolean, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const graphWith = (steps: number, text = 'a red kite') => ({
  ...SAMPLE_WORKFLOW.graph,
  '3': { ...SAMPLE_WORKFLOW.graph['3'], inputs: { ...SAMPLE_WORKFLOW.graph['3'].inputs, steps } },
  '6': { ...SAMPLE_WORKFLOW.graph['6'], inputs: { ...SAMPLE_WORKFLOW.graph['6'].inputs, text } },
});

describe('the node-graph simulator', () => {
  it('answers validation errors as the server does (§2.2)', async () => {
    const noPrompt = await postJson(`${sim.url}/prompt`, { client_id: 'x' });
    expect(noPrompt.status).toBe(400);
    expect(await noPrompt.json()).toMatchObject({ error: { type: 'no_prompt' }, node_errors: {} });
    const unknownType = await postJson(`${sim.url}/prompt`, { prompt: { '1': { class_type: 'Nope', inputs: {} } } });
    expect(await unknownType.json()).toMatchObject({
      error: { type: 'missing_node_type', extra_info: { node_id: '1', class_type: 'Nope' } },
    });
    const noOutputs = await postJson(`${sim.url}/prompt`, { prompt: { '5': SAMPLE_WORKFLOW.graph['5'] } });
    expect(await noOutputs.json()).toMatchObject({ error: { type: 'prompt_no_outputs' } });
    const bad = await postJson(`${sim.url}/api/prompt`, {
      prompt: {
        ...SAMPLE_WORKFLOW.graph,
        '3': { class_type: 'KSampler', inputs: { ...SAMPLE_WORKFLOW.graph['3'].inputs, steps: 0, positive: ['5', 0] } },
      },
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as {
      error: { type: string };
      node_errors: Record<string, { errors: { type: string }[]; class_type: string; dependent_outputs: string[] }>;
    };
    expect(body.error.type).toBe('prompt_outputs_failed_validation');
    expect(body.node_errors['3']).toMatchObject({ class_type: 'KSampler', dependent_outputs: ['9'] });
    expect(body.node_errors['3'].errors.map((error) => error.type).sort()).toEqual(['return_type_mismatch', 'value_smaller_than_min']);
  });

  it("runs one prompt with the contract's message order, progress and binary previews", async () => {
    const { socket, frames } = await connect(sim.url, 'order');
    const answer = (await (await postJson(`${sim.url}/prompt`, { prompt: graphWith(4), client_id: 'order' })).json()) as {
      prompt_id: string;
      number: number;
      node_errors: object;
    };
    expect(answer).toMatchObject({ prompt_id: expect.stringMatching(/^[0-9a-f-]{36}$/), node_errors: {} });
    await until(() => {
      const last = frames.at(-1);
      return Boolean(
        last && 'type' in last && last.type === 'status' && frames.some((frame) => 'type' in frame && frame.type === 'execution_success'),
      );
    });
    const types = frames.map((frame) => ('type' in frame ? frame.type : 'binary'));
    expect(types[0]).toBe('status');
    expect(frames[0]).toMatchObject({ type: 'status', data: { sid: 'order' } });
    const run = types.slice(types.indexOf('execution_start'));
    expect(run.slice(0, 2)).toEqual(['execution_start', 'execution_cached']);
    expect(run.filter((type) => type === 'progress')).toHaveLength(4);
    expect(run.filter((type) => type === 'binary')).toHaveLength(4);
    expect(run.slice(-4)).toEqual(['executed', 'execution_success', 'executing', 'status']);
    expect(frames.at(-1)).toEqual({ type: 'status', data: { status: { exec_info: { queue_remaining: 0 } } } });
    const preview = frames.find((frame) => 'binary' in frame) as { binary: Buffer };
    expect([preview.binary.readUInt32BE(0), preview.binary.readUInt32BE(4)]).toEqual([1, 1]);
    expect((await sharp(preview.binary.subarray(8)).metadata()).format).toBe('jpeg');
    const history = (await (await fetch(`${sim.url}/history/${answer.prompt_id}`)).json()) as Record<
      string,
      { status: { completed: boolean }; outputs: { '9': { images: { filename: string; type: string }[] } } }
    >;
    expect(history[answer.prompt_id].status.completed).toBe(true);
    const image = history[answer.prompt_id].outputs['9'].images[0];
    const view = await fetch(`${sim.url}/view?filename=${image.filename}&type=${image.type}`);
    expect(view.headers.get('content-disposition')).toBe(`filename="${image.filename}"`);
    expect(await sharp(Buffer.from(await view.arrayBuffer())).metadata()).toMatchObject({ width: 512, height: 512, format: 'png' });
    socket.close();
  });

  it('queues: one runs, the others wait in order; delete and interrupt', async () => {
    const ids: string[] = [];
    for (const steps of [200, 2, 2])
      ids.push(((await (await postJson(`${sim.url}/prompt`, { prompt: graphWith(steps) })).json()) as { prompt_id: string }).prompt_id);
    await until(() => (sim.executor.queue().queue_running[0]?.[1] as string) === ids[0]);
    const queue = (await (await fetch(`${sim.url}/queue`)).json()) as { queue_running: unknown[][]; queue_pending: unknown[][] };
    expect(queue.queue_pending.map((item) => item[1])).toEqual([ids[1], ids[2]]);
    expect(await (await fetch(`${sim.url}/prompt`)).json()).toEqual({ exec_info: { queue_remaining: 3 } });
    await postJson(`${sim.url}/queue`, { delete: [ids[1]] });
    await postJson(`${sim.url}/interrupt`, { prompt_id: 'not-running' });
    expect(sim.executor.interrupts).not.toContain(ids[0]);
    await postJson(`${sim.url}/interrupt`, { prompt_id: ids[0] });
    await until(() => Boolean(sim.executor.historyOf(ids[2])));
    expect(sim.executor.historyOf(ids[0])?.status).toMatchObject({ status_str: 'error', completed: false });
    expect(sim.executor.historyOf(ids[0])?.status.messages.at(-1)?.[0]).toBe('execution_interrupted');
    expect(sim.executor.historyOf(ids[1])).toBeUndefined();
    expect(await (await fetch(`${sim.url}/history/${ids[1]}`)).json()).toEqual({});
  });

  it('uploads with de-duplicated names, serves files with the path checks', async () => {
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#00ff00' } })
      .png()
      .toBuffer();
    const other8 = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#0000ff' } })
      .png()
      .toBuffer();
    const upload = async (bytes: Buffer) => {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), 'cat.png');
      return (await (await fetch(`${sim.url}/upload/image`, { method: 'POST', body: form })).json()) as { name: string };
    };
    expect(await upload(png)).toEqual({ name: 'cat.png', subfolder: '', type: 'input' });
    expect(await upload(png)).toMatchObject({ name: 'cat.png' });
    expect(await upload(other8)).toMatchObject({ name: 'cat (1).png' });
    expect((await fetch(`${sim.url}/upload/image`, { method: 'POST', body: new FormData() })).status).toBe(400);
    expect((await fetch(`${sim.url}/view?filename=cat.png&type=input`)).status).toBe(200);
    expect((await fetch(`${sim.url}/view?filename=../etc/passwd`)).status).toBe(400);
    expect((await fetch(`${sim.url}/view?filename=cat.png&subfolder=../x&type=input`)).status).toBe(403);
    expect((await fetch(`${sim.url}/view?filename=nope.png`)).status).toBe(404);
    const info = (await (await fetch(`${sim.url}/object_info/LoadImage`)).json()) as {
      LoadImage: { input: { required: { image: [string[]] } } };
    };
    expect(info.LoadImage.input.required.image[0]).toEqual(['cat (1).png', 'cat.png']);
  });

  it('re-sends the running node to a client that reconnects, and runs apart from a second instance', async () => {
    const first = await connect(sim.url, 'again');
    const { prompt_id: promptId } = (await (
      await postJson(`${sim.url}/prompt`, { prompt: graphWith(100), client_id: 'again' })
    ).json()) as { prompt_id: string };
    await until(() => first.frames.some((frame) => 'type' in frame && frame.type === 'progress'));
    const second = await connect(sim.url, 'again');
    await until(() => second.frames.some((frame) => 'type' in frame && frame.type === 'executing'));
    expect(second.frames.find((frame) => 'type' in frame && frame.type === 'executing')).toMatchObject({
      data: { node: '3', prompt_id: promptId },
    });
    await until(() => first.socket.readyState === WebSocket.CLOSED);
    // The other instance has its own queue and history.
    expect(((await (await fetch(`${other.url}/queue`)).json()) as { queue_running: unknown[] }).queue_running).toEqual([]);
    expect(await (await fetch(`${other.url}/history/${promptId}`)).json()).toEqual({});
    await postJson(`${sim.url}/interrupt`, {});
    second.socket.close();
  });
});
