import { execFileSync } from 'node:child_process';
import { constants, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChannelEvent } from '../../src/common/events/types.js';
import { laneRequest, planImageJob } from '../../src/studio/jobs/plan.js';
import { buildResponsesBody, dataUrlPieces } from '../../src/studio/lanes/responses/request.js';
import { startRig, type Rig } from './rig.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// Regression tests of review findings: a client that leaves during planning
// starts no job (#2); a batch loads its input images once and its upstream
// bodies share them (#8); an unusable chat session is refused before a job is
// accepted, the same way /api/providers reports it (#9).

let rig: Rig;
beforeAll(async () => {
  rig = await startRig();
});
afterAll(async () => {
  await rig.stop();
});

const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 10, g: 120, b: 200 } } })
    .png()
    .toBuffer();

/** A PNG whose base64 is several MiB (noise does not compress). */
async function noisyPng(side: number): Promise<Buffer> {
  const raw = Buffer.alloc(side * side * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761) >>> 13;
  return sharp(raw, { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}

const upstreamPrompts = () =>
  rig.sim.simulator
    .requests({ route: 'POST /v1/responses' })
    .map((entry) => JSON.stringify((entry.body as { input?: unknown }).input ?? ''));

/** Events of one request, as published inside the studio (nobody needs to be connected). */
function recordEvents(requestId: string): { events: ChannelEvent[]; settled: Promise<ChannelEvent>; stop(): void } {
  const events: ChannelEvent[] = [];
  let settle!: (event: ChannelEvent) => void;
  const settled = new Promise<ChannelEvent>((resolve) => (settle = resolve));
  const stop = rig.studio.ctx.events.subscribe((event) => {
    if (event.requestId !== requestId) return;
    events.push(event);
    if (event.event === 'done' || event.event === 'error') settle(event);
  });
  return { events, settled, stop };
}

/**
 * Sends a generation whose planning blocks on reading a reference from history
 * (the history file is swapped for a named pipe), drops the connection while
 * it blocks, waits until the server saw the connection close, then lets
 * planning finish. Deterministic: the client is gone before the job could start.
 */
async function leaveDuringPlanning(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<void> {
  const seeded = (await (await rig.post('/api/generate', { prompt: 'a seed image', provider: 'api' })).json()) as {
    images: Array<{ filename: string }>;
  };
  const filename = seeded.images[0].filename;
  // Its thumbnail is made first (it follows the answer): made from the pipe, it would wait on it for ever.
  await rig.studio.ctx.derived.idle();
  const gate = join(rig.studio.ctx.paths.generatedDir, filename);
  await rm(gate);
  execFileSync('mkfifo', [gate]);

  const serverSide = new Promise<Socket>((resolve) => rig.studio.app.server.once('connection', resolve));
  const text = JSON.stringify({ ...body, references: [filename] });
  const client = connect(rig.studio.port, '127.0.0.1');
  client.on('error', () => {});
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const head = Object.entries({
    host: `127.0.0.1:${rig.studio.port}`,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  client.write(`POST /api/generate HTTP/1.1\r\n${head}\r\n${text}`);
  const socket = await serverSide;

  let writer: Awaited<ReturnType<typeof open>> | undefined;
  try {
    // Opening a pipe for writing waits for its reader: the server is now planning.
    writer = await open(gate, 'w');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    client.destroy();
    await closed;
    await writer.writeFile(await png(32, 32));
  } finally {
    await writer?.close();
    // Never leave a reader blocked on the pipe, whatever happened.
    if (!writer) await (await open(gate, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined))?.close();
  }
}

describe('a client that leaves while its request is planned (#2)', () => {
  it.each([
    ['sync JSON', {}],
    ['per-request SSE', { accept: 'text/event-stream' }],
  ])('%s: no job starts, nothing goes upstream, nothing is saved', async (_mode, headers) => {
    const requestId = `left-early-${Object.keys(headers).length}`;
    const recorded = recordEvents(requestId);
    try {
      await leaveDuringPlanning({ prompt: 'nobody is waiting for this', provider: 'api', requestId }, headers);
      // A later job through the same server and upstream: by its end the first request has long been handled.
      const later = await rig.post('/api/generate', { prompt: 'a later request', provider: 'api' });
      expect(later.status).toBe(200);
      expect(upstreamPrompts().some((prompt) => prompt.includes('nobody is waiting'))).toBe(false);
      expect(recorded.events).toEqual([]);
      const inflight = (await (await rig.get('/api/inflight')).json()) as { jobs: Array<{ requestId: string }> };
      expect(inflight.jobs.map((job) => job.requestId)).not.toContain(requestId);
      expect(embeddedDatabase(rig.studio.ctx).prepare('SELECT COUNT(*) AS n FROM assets WHERE request_id = ?').get(requestId)).toEqual({
        n: 0,
      });
    } finally {
      recorded.stop();
    }
  });

  it('cancelOnDisconnect: false still runs the job and saves its image', async () => {
    const requestId = 'left-early-kept';
    const recorded = recordEvents(requestId);
    try {
      await leaveDuringPlanning({ prompt: 'keep going without me', provider: 'api', requestId, cancelOnDisconnect: false });
      const end = await recorded.settled;
      expect(end.event).toBe('done');
      expect(embeddedDatabase(rig.studio.ctx).prepare('SELECT COUNT(*) AS n FROM assets WHERE request_id = ?').get(requestId)).toEqual({
        n: 1,
      });
    } finally {
      recorded.stop();
    }
  });
});

describe('a multimode batch shares its input images (#8)', () => {
  it('plans every slot with the same loaded references (decoded once, not per slot)', async () => {
    const image = `data:image/png;base64,${(await png(40, 30)).toString('base64')}`;
    const slots = [0, 1, 2].map((slot) => ({
      requestId: `batch.${slot}`,
      fields: { prompt: 'three cats', provider: 'api' as const, ...(slot === 2 ? { quality: 'low' as const } : {}) },
    }));
    const plan = await planImageJob(rig.studio.ctx, slots, { references: [image, image] }, 'generate');
    expect(plan.request.slots.map((slot) => slot.requestId)).toEqual(['batch.0', 'batch.1', 'batch.2']);
    // What each slot's lane is handed: the very same decoded images.
    const [first, ...rest] = plan.request.slots.map((slot) => laneRequest(rig.studio.ctx, slot, plan.inputs).request.references);
    expect(first).toHaveLength(2);
    expect(first[0]).toMatchObject({ width: 40, height: 30, mime: 'image/png' });
    for (const references of rest) expect(references).toBe(first);
    expect(plan.request.slots[2].fields.quality).toBe('low');
    // The job stores descriptors of its inputs, never their bytes.
    expect(plan.request.inputs.references).toEqual([
      {
        source: 'inline',
        format: 'png',
        width: 40,
        height: 30,
        bytes: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
      {
        source: 'inline',
        format: 'png',
        width: 40,
        height: 30,
        bytes: expect.any(Number),
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      },
    ]);
  });

  it('checks the reference count against every slot before decoding any image', async () => {
    const image = `data:image/png;base64,${(await png(8, 8)).toString('base64')}`;
    const slots = [{ requestId: 'few.0', fields: { prompt: 'x', provider: 'api' as const } }];
    const refused = await planImageJob(rig.studio.ctx, slots, { references: Array(17).fill(image) }, 'generate').catch(
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ code: 'REFERENCE_TOO_MANY', details: { lane: 'api', max: 16, got: 17 } });
  });

  it('serializes the upstream body exactly as JSON, each image from one shared encoding', async () => {
    const big = { bytes: await noisyPng(700), mime: 'image/png' };
    const small = { bytes: await png(16, 16), mime: 'image/png' };
    const pieces = dataUrlPieces(big);
    expect(dataUrlPieces(big)).toBe(pieces);
    expect(pieces.length).toBeGreaterThan(1);
    const url = (image: typeof big) => `data:${image.mime};base64,${image.bytes.toString('base64')}`;
    expect(Buffer.from(await new Blob([...pieces]).arrayBuffer()).toString('latin1')).toBe(url(big));

    const prompt = 'quotes " and \\ back\nslash, unicode ✓ 🦊, a NUL \u0000 and a lone \ud800';
    const input = {
      model: 'lang-5.6-luna',
      prompt,
      instructions: 'plan',
      images: [big, small],
      mask: small,
      reasoning: 'low' as const,
      webSearch: true,
      store: false,
      tool: {
        model: 'lang-image-2',
        format: 'png' as const,
        size: '1024x1024',
        quality: 'high' as const,
        partialImages: 2,
        action: 'edit' as const,
      },
    };
    const expected = {
      model: 'lang-5.6-luna',
      instructions: 'plan',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: prompt },
            { type: 'input_image', image_url: url(big), detail: 'auto' },
            { type: 'input_image', image_url: url(small), detail: 'auto' },
          ],
        },
      ],
      tools: [
        {
          type: 'image_generation',
          model: 'lang-image-2',
          output_format: 'png',
          partial_images: 2,
          size: '1024x1024',
          quality: 'high',
          action: 'edit',
          input_image_mask: { image_url: url(small) },
        },
        { type: 'web_search' },
      ],
      tool_choice: 'required',
      stream: true,
      reasoning: { effort: 'low' },
      store: false,
    };
    const body = buildResponsesBody(input);
    if (!(body instanceof Blob)) throw new Error('a body with images is a Blob');
    expect(body.type).toBe('application/json');
    expect(await body.text()).toBe(JSON.stringify(expected));
    // A second body from the same images reuses their encoding.
    expect(await (buildResponsesBody({ ...input, prompt: 'again' }) as Blob).text()).toContain(url(big));
    // Without images the body is the JSON text itself (sent in one write).
    const plain = buildResponsesBody({ ...input, images: [], mask: undefined });
    expect(typeof plain).toBe('string');
    expect(JSON.parse(plain as string).input[0].content).toEqual([{ type: 'input_text', text: prompt }]);
  });

  it('sends every slot the same reference over HTTP', async () => {
    const reference = await png(24, 24);
    rig.sim.simulator.clearRequests();
    const response = await rig.post('/api/generate/multimode', {
      prompt: 'three owls',
      provider: 'api',
      n: 3,
      references: [`data:image/png;base64,${reference.toString('base64')}`],
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { succeeded: number }).succeeded).toBe(3);
    const sent = rig.sim.simulator.requests({ route: 'POST /v1/responses' });
    expect(sent).toHaveLength(3);
    for (const entry of sent) {
      const content = (entry.body as { input: Array<{ content: Array<{ type: string; image_url?: string }> }> }).input[0].content;
      expect(content.filter((part) => part.type === 'input_image').map((part) => part.image_url)).toEqual([
        `data:image/png;base64,${reference.toString('base64')}`,
      ]);
    }
  });
});

describe('an explicit oauth request with an unusable session (#9)', () => {
  it.each([
    ['no chat tokens (API-key mode)', JSON.stringify({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-not-shown', tokens: null })],
    ['not JSON', '{ "tokens": '],
  ])('%s: refused with 401 before the job is accepted, even async; /api/providers agrees', async (_case, content) => {
    writeFileSync(rig.authFile, content);
    const requestId = `oauth-unusable-${content.length}`;
    const recorded = recordEvents(requestId);
    try {
      // Async, per-request SSE and sync: all refused the same way.
      const deliveries: Array<[Record<string, unknown>, Record<string, string>]> = [
        [{ async: true, requestId }, {}],
        [{ requestId }, { accept: 'text/event-stream' }],
        [{}, {}],
      ];
      for (const [extra, headers] of deliveries) {
        const response = await rig.post('/api/generate', { prompt: 'hello', provider: 'oauth', ...extra }, headers);
        expect(response.status).toBe(401);
        const body = (await response.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe('OAUTH_UNAVAILABLE');
        expect(JSON.stringify(body)).not.toContain('sk-not-shown');
      }
      expect(recorded.events).toEqual([]);
      const providers = (await (await rig.get('/api/providers')).json()) as {
        providers: Array<{ id: string; state: string; reason: string }>;
      };
      expect(providers.providers.find((lane) => lane.id === 'oauth')).toMatchObject({ state: 'needs_credential' });
      // `auto` skips the lane for the same reason and goes to api.
      const auto = await rig.post('/api/generate', { prompt: 'hello auto', provider: 'auto' });
      expect(((await auto.json()) as { provider: string }).provider).toBe('api');
    } finally {
      recorded.stop();
      await rm(rig.authFile, { force: true });
    }
  });
});
