import { generationEventPayloads, type GenerationEventName } from '../../src/studio/api/index.js';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readEmbeddedMetadata } from '../../src/studio/assets.js';
import { findAsset } from '../../src/studio/store/assets.js';
import { collectEvents, followEvents, solidPng, startRig, type Rig, type StreamedEvent } from './rig.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// Classic generation over real HTTP against the Responses simulator: the three
// deliveries of one job, multimode, edit with a mask, validation.

interface ImageRecord {
  filename: string;
  format: string;
  width: number;
  height: number;
  prompt: string;
  lane: string;
  model: string;
  requestId: string;
}

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig.stop();
});

const upstreamBody = () => rig.sim.simulator.lastRequest({ route: 'POST /v1/responses' })?.body as Record<string, unknown>;

describe('POST /api/generate on the api lane', () => {
  it('answers sync JSON with a real PNG saved in history, its prompt embedded', async () => {
    const response = await rig.post('/api/generate', { prompt: 'a red kite over a green hill', provider: 'api', quality: 'low' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      requestId: string;
      provider: string;
      model: string;
      images: ImageRecord[];
      revisedPrompt?: string;
      usage?: unknown;
      timings: Record<string, number>;
    };
    expect(body.provider).toBe('api');
    expect(body.model).toBe('lang-5.6-luna');
    expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.revisedPrompt).toContain('red kite');
    expect(body.usage).toBeDefined();
    expect(body.timings.saveMs).toBeGreaterThan(0);
    expect(body.images).toHaveLength(1);
    const [image] = body.images;
    expect(image).toMatchObject({
      format: 'png',
      width: 1024,
      height: 1024,
      prompt: 'a red kite over a green hill',
      provider: 'api',
      requestId: body.requestId,
    });

    const bytes = await readFile(join(rig.studio.ctx.paths.generatedDir, image.filename));
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 1024, height: 1024 });
    expect((await readEmbeddedMetadata(bytes))?.prompt).toBe('a red kite over a green hill');
    expect(findAsset(embeddedDatabase(rig.studio.ctx), image.filename)).toMatchObject({
      request_id: body.requestId,
      lane: 'api',
      deleted_at: null,
    });

    // The upstream call: planner + hosted tool rendering lang-image-2, defaults filled in.
    const sent = upstreamBody();
    expect(sent).toMatchObject({ model: 'lang-5.6-luna', stream: true, reasoning: { effort: 'low' } });
    const tools = sent.tools as Array<Record<string, unknown>>;
    expect(tools[0]).toMatchObject({
      type: 'image_generation',
      model: 'lang-image-2',
      size: '1024x1024',
      quality: 'low',
      output_format: 'png',
      partial_images: 2,
    });
    expect(tools.some((tool) => tool.type === 'web_search')).toBe(true);
  });

  it('returns 202 for async and delivers phase, partial and done on /api/events in order', async () => {
    const watcher = new AbortController();
    const events = await followEvents(rig.studio.url, watcher.signal);
    try {
      const response = await rig.post('/api/generate', { prompt: 'async lighthouse', provider: 'api', async: true, requestId: 'async-1' });
      expect(response.status).toBe(202);
      expect(await response.json()).toEqual({ requestId: 'async-1', status: 'accepted' });
      const mine = await events.until('async-1');
      const names = mine.map((event) => (event.event === 'phase' ? `phase:${String(event.phase)}` : event.event));
      // The whole sequence, exactly: every phase once, in order, both partials before saving, one terminal event.
      expect(names).toEqual(['phase:queued', 'phase:planning', 'phase:rendering', 'partial', 'partial', 'phase:saving', 'done']);
      // Every payload is what the API contract says.
      for (const event of mine) {
        const schema = generationEventPayloads[event.event as GenerationEventName];
        expect(schema.safeParse(event).error, event.event).toBeUndefined();
      }
      const partial = mine.find((event) => event.event === 'partial') as StreamedEvent;
      expect(partial).toMatchObject({ topic: 'generation', requestId: 'async-1', index: 0, format: 'png' });
      expect(Buffer.from(String(partial.b64), 'base64').subarray(1, 4).toString()).toBe('PNG');
      const done = mine.at(-1) as StreamedEvent & { result: { images: ImageRecord[] } };
      expect(done.result.images[0].prompt).toBe('async lighthouse');
    } finally {
      watcher.abort();
    }
  });

  it('needs a requestId for async', async () => {
    const response = await rig.post('/api/generate', { prompt: 'x', provider: 'api', async: true });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('REQUEST_ID_REQUIRED');
  });

  it('streams one request as SSE with Accept: text/event-stream, ending with done', async () => {
    const response = await rig.post(
      '/api/generate',
      { prompt: 'streamed owl', provider: 'api', requestId: 'sse-1' },
      { accept: 'text/event-stream' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = await collectEvents(response);
    expect(events.every((event) => event.requestId === 'sse-1')).toBe(true);
    expect(events[0]).toMatchObject({ event: 'phase', phase: 'queued' });
    expect(events.some((event) => event.event === 'partial')).toBe(true);
    expect(events.at(-1)).toMatchObject({ event: 'done', result: { requestId: 'sse-1', provider: 'api' } });
  });

  it('answers validation errors as plain JSON even when SSE was asked for', async () => {
    const response = await rig.post('/api/generate', { prompt: 'x', quality: 'ultra' }, { accept: 'text/event-stream' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'BAD_REQUEST', details: { field: 'quality', valid: ['low', 'medium', 'high'] } },
    });
  });

  it('rejects values outside the catalog with the valid ones', async () => {
    const cases: Array<[Record<string, unknown>, number, string, Record<string, unknown>?]> = [
      [{ prompt: 'x', size: '1000x1000' }, 400, 'BAD_REQUEST', { field: 'size' }],
      [{ prompt: 'x', format: 'gif' }, 400, 'BAD_REQUEST', { field: 'format', valid: ['png', 'jpeg', 'webp'] }],
      [{ prompt: 'x', moderation: 'off' }, 400, 'BAD_REQUEST', { field: 'moderation', valid: ['auto', 'low'] }],
      [{ prompt: 'x', provider: 'nope' }, 400, 'BAD_REQUEST', { field: 'provider' }],
      [{ prompt: '' }, 400, 'BAD_REQUEST', { field: 'prompt' }],
      [{ prompt: 'x', colour: 'red' }, 400, 'BAD_REQUEST', { unknown: ['colour'] }],
      [{ prompt: 'x', provider: 'api', model: 'no-such-model' }, 400, 'INVALID_IMAGE_MODEL'],
      [{ prompt: 'x', provider: 'api', model: 'lang-6-luna' }, 400, 'IMAGE_MODEL_UNSUPPORTED'],
      [{ prompt: 'x', provider: 'api', model: 'alpha-video' }, 400, 'IMAGE_MODEL_UNSUPPORTED'],
      [{ prompt: 'x', provider: 'api', negativePrompt: 'blur' }, 400, 'LANE_UNSUPPORTED', { field: 'negativePrompt' }],
      // The MCP lanes are image lanes too: eta answers its lock until SVC_ETA_EXECUTABLE unlocks it.
      [{ prompt: 'x', provider: 'eta' }, 409, 'MCP_EXECUTION_LOCKED'],
    ];
    for (const [body, status, code, details] of cases) {
      const response = await rig.post('/api/generate', body);
      const answer = (await response.json()) as { error: { code: string; details?: Record<string, unknown> } };
      expect({ body, status: response.status, code: answer.error.code }).toEqual({ body, status, code });
      if (details) expect(answer.error.details).toMatchObject(details);
      if (code === 'INVALID_IMAGE_MODEL') expect(answer.error.details?.valid).toContain('lang-5.6-luna');
    }
  });

  it('routes auto to the first ready lane (api when there is no chat session)', async () => {
    const response = await rig.post('/api/generate', { prompt: 'auto routed', provider: 'auto' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { provider: string }).provider).toBe('api');
  });
});

describe('POST /api/edit', () => {
  it('edits an image with a mask (input_image + input_image_mask upstream)', async () => {
    const image = await solidPng(64, 64);
    const mask = await solidPng(64, 64, 0);
    const response = await rig.post('/api/edit', { prompt: 'add a moon', provider: 'api', image, mask, size: '1024x1024' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { images: Array<ImageRecord & { kind: string }> };
    expect(body.images[0]).toMatchObject({ kind: 'edit', prompt: 'add a moon', width: 1024 });
    const sent = upstreamBody();
    const tool = (sent.tools as Array<Record<string, unknown>>)[0];
    expect(tool.action).toBe('edit');
    expect(String((tool.input_image_mask as { image_url: string }).image_url)).toMatch(/^data:image\/png;base64,/);
    const content = (sent.input as Array<{ content: Array<{ type: string }> }>)[0].content;
    expect(content.map((part) => part.type)).toEqual(['input_text', 'input_image']);
  });

  it('needs an image', async () => {
    const response = await rig.post('/api/edit', { prompt: 'add a moon', provider: 'api' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', details: { field: 'image' } } });
  });
});

describe('POST /api/generate/multimode', () => {
  it('reports partial success per slot instead of hiding it', async () => {
    // The first upstream call of the batch fails; the other succeeds.
    rig.sim.simulator.fault('POST /v1/responses', { status: 500, times: 1 });
    const response = await rig.post(
      '/api/generate/multimode',
      { prompt: 'two foxes', provider: 'api', n: 2, requestId: 'multi-1' },
      { accept: 'text/event-stream' },
    );
    expect(response.status).toBe(200);
    const events = await collectEvents(response);
    const done = events.at(-1) as StreamedEvent & {
      result: {
        results: Array<{ slot: number; ok: boolean; image?: ImageRecord; error?: { code: string } }>;
        succeeded: number;
        failed: number;
      };
    };
    expect(done.event).toBe('done');
    expect(done.result).toMatchObject({ succeeded: 1, failed: 1 });
    const failed = done.result.results.find((slot) => !slot.ok);
    const succeeded = done.result.results.find((slot) => slot.ok);
    expect(failed?.error?.code).toBe('UPSTREAM_FAILED');
    expect(succeeded?.image?.prompt).toBe('two foxes');
    expect(events.filter((event) => event.event === 'slot_done').map((event) => event.slot)).toEqual([succeeded?.slot]);
    expect(events.filter((event) => event.event === 'slot_error').map((event) => event.slot)).toEqual([failed?.slot]);
    expect(events.filter((event) => event.event === 'phase' && event.slot !== undefined).length).toBeGreaterThan(0);
  });

  it('runs one output per entry of `outputs`, sync', async () => {
    const response = await rig.post('/api/generate/multimode', {
      prompt: 'a tower',
      provider: 'api',
      outputs: [{ size: '1024x1536' }, { size: '1536x1024', quality: 'low' }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Array<{ slot: number; ok: boolean; image: ImageRecord }> };
    expect(body.results.map((slot) => [slot.slot, slot.ok, slot.image.width, slot.image.height])).toEqual([
      [0, true, 1024, 1536],
      [1, true, 1536, 1024],
    ]);
  });

  it('refuses `outputs` and `n` together, naming both (neither silently wins)', async () => {
    const response = await rig.post('/api/generate/multimode', {
      prompt: 'a tower',
      provider: 'api',
      n: 3,
      outputs: [{ size: '1024x1536' }],
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.message).toMatch(/outputs.*n|n.*outputs/);
  });
});

describe('in-flight jobs', () => {
  it('lists a running job, refuses its requestId twice (409), and cancels it upstream with DELETE', async () => {
    const watcher = new AbortController();
    const events = await followEvents(rig.studio.url, watcher.signal);
    try {
      const started = await rig.post('/api/generate', {
        prompt: 'slow painting [sim:stall=20000]',
        provider: 'api',
        async: true,
        requestId: 'cancel-me',
      });
      expect(started.status).toBe(202);
      // Wait until the upstream stream is open and rendering.
      let listed: Array<{ requestId: string; phase: string; kind: string; provider: string }> = [];
      while (!listed.some((job) => job.requestId === 'cancel-me' && job.phase === 'rendering')) {
        listed = ((await (await rig.get('/api/inflight')).json()) as { jobs: typeof listed }).jobs;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(listed.find((job) => job.requestId === 'cancel-me')).toMatchObject({ kind: 'generate', provider: 'api' });

      const duplicate = await rig.post('/api/generate', { prompt: 'again', provider: 'api', requestId: 'cancel-me' });
      expect(duplicate.status).toBe(409);
      expect(((await duplicate.json()) as { error: { code: string } }).error.code).toBe('REQUEST_ID_IN_USE');

      const cancelled = await fetch(`${rig.studio.url}/api/inflight/cancel-me`, { method: 'DELETE' });
      expect(cancelled.status).toBe(200);
      expect(await cancelled.json()).toMatchObject({ requestId: 'cancel-me', cancelled: true });
      const mine = await events.until('cancel-me');
      expect(mine.at(-1)).toMatchObject({ event: 'error', error: { code: 'JOB_CANCELLED' } });
      const upstream = await rig.sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('slow painting'));
      expect(upstream.outcome).toBe('client-aborted');
      expect(((await (await rig.get('/api/inflight')).json()) as { jobs: unknown[] }).jobs).toEqual([]);
      // The requestId stays the cancelled job's: another request with it is refused (a retry is POST /api/jobs/:id/retry).
      expect((await rig.post('/api/generate', { prompt: 'quick', provider: 'api', requestId: 'cancel-me' })).status).toBe(409);
    } finally {
      watcher.abort();
    }
  });

  it('cancels the upstream call when the per-request SSE client goes away', async () => {
    const client = new AbortController();
    const response = await rig.post(
      '/api/generate',
      { prompt: 'abandoned [sim:stall=20000]', provider: 'api', requestId: 'walk-away' },
      { accept: 'text/event-stream' },
    );
    const reader = fetch(`${rig.studio.url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'abandoned too [sim:stall=20000]', provider: 'api', requestId: 'walk-away-2' }),
      signal: client.signal,
    });
    // The first stream: read until rendering, then drop it.
    await collectEvents(response, (event) => event.phase === 'rendering');
    await response.body?.cancel();
    const upstream = await rig.sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('abandoned ['));
    expect(upstream.outcome).toBe('client-aborted');
    // The second: abort the fetch itself once it is rendering.
    const second = await reader;
    await collectEvents(second, (event) => event.phase === 'rendering');
    client.abort();
    const upstream2 = await rig.sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('abandoned too'));
    expect(upstream2.outcome).toBe('client-aborted');
    // The job says why it ended: its client left, not a DELETE.
    await vi.waitFor(async () =>
      expect(((await (await rig.get('/api/jobs/walk-away')).json()) as { error: unknown }).error).toMatchObject({
        code: 'JOB_CANCELLED',
        message: 'The client closed the event stream.',
      }),
    );
  });

  it('cancels the upstream call when a sync client disconnects', async () => {
    const client = new AbortController();
    const request = fetch(`${rig.studio.url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'sync gone [sim:stall=20000]', provider: 'api', requestId: 'sync-gone-2' }),
      signal: client.signal,
    }).catch(() => undefined);
    let phase = '';
    while (phase !== 'rendering') {
      const jobs = ((await (await rig.get('/api/inflight')).json()) as { jobs: Array<{ requestId: string; phase: string }> }).jobs;
      phase = jobs.find((job) => job.requestId === 'sync-gone-2')?.phase ?? '';
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    client.abort();
    await request;
    const upstream = await rig.sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('sync gone ['));
    expect(upstream.outcome).toBe('client-aborted');
    await vi.waitFor(async () =>
      expect(((await (await rig.get('/api/jobs/sync-gone-2')).json()) as { error: unknown }).error).toMatchObject({
        code: 'JOB_CANCELLED',
        message: 'The client disconnected before the answer.',
      }),
    );
  });

  it('cancels running jobs at shutdown instead of waiting for them', async () => {
    const own = await startRig({ sim: rig.sim });
    const pending = own.post('/api/generate', { prompt: 'never finishes [sim:stall=60000]', provider: 'api', requestId: 'at-shutdown' });
    let phase = '';
    while (phase !== 'rendering') {
      const jobs = ((await (await own.get('/api/inflight')).json()) as { jobs: Array<{ requestId: string; phase: string }> }).jobs;
      phase = jobs.find((job) => job.requestId === 'at-shutdown')?.phase ?? '';
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await own.stop();
    const response = await pending;
    expect(await response.json()).toMatchObject({ error: { code: 'JOB_CANCELLED' } });
    const upstream = await rig.sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('never finishes'));
    expect(upstream.outcome).toBe('client-aborted');
  });

  it('answers 404 JOB_NOT_FOUND for an unknown job', async () => {
    const response = await fetch(`${rig.studio.url}/api/inflight/nobody`, { method: 'DELETE' });
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('JOB_NOT_FOUND');
  });
});

describe('api lane defaults', () => {
  it('follows SVC_API_* and saved defaults; a request field wins over both', async () => {
    const configured = await startRig({
      sim: rig.sim,
      env: { SVC_API_ALLOW_WEB_SEARCH: 'false', SVC_API_REASONING_EFFORT: 'high', SVC_API_IMAGE_SIZE: '1536x1024' },
    });
    try {
      const sent = () => configured.sim.simulator.lastRequest({ route: 'POST /v1/responses' })?.body as Record<string, unknown>;
      const first = await configured.post('/api/generate', { prompt: 'defaults', provider: 'api' });
      expect(first.status).toBe(200);
      expect(((await first.json()) as { images: ImageRecord[] }).images[0]).toMatchObject({ width: 1536, height: 1024 });
      expect(sent()).toMatchObject({ reasoning: { effort: 'high' }, tool_choice: { type: 'image_generation' } });
      expect((sent().tools as unknown[]).length).toBe(1);

      const saved = await fetch(`${configured.studio.url}/api/defaults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'lang-5.6-terra' }),
      });
      expect(saved.status).toBe(200);
      const second = await configured.post('/api/generate', {
        prompt: 'saved model',
        provider: 'api',
        reasoning: 'none',
        size: '1024x1024',
      });
      expect(((await second.json()) as { model: string }).model).toBe('lang-5.6-terra');
      expect(sent()).toMatchObject({ model: 'lang-5.6-terra', reasoning: { effort: 'none' } });
      expect((sent().tools as Array<Record<string, unknown>>)[0].size).toBe('1024x1024');
    } finally {
      await configured.stop();
    }
  });
});
