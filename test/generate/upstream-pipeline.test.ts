import { createServer, type Server } from 'node:http';
import { readdirSync } from 'node:fs';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import type { GenerationResult } from '../../src/studio/api/index.js';
import { callUpstream, readBytes, readJson, UpstreamError } from '../../src/studio/upstream/index.js';
import { z } from 'zod';
import { startRig, type Rig } from './rig.js';

// The way an image travels from the upstream to history: the upstream client
// (node:http, keep-alive), the file written while the stream ends, the
// partial images made only for someone who listens.

let rig: Rig;

beforeAll(async () => {
  rig = await startRig();
});

afterAll(async () => {
  await rig.stop();
});

const generatedFiles = () => readdirSync(rig.studio.ctx.paths.generatedDir).sort();

describe('an image written while its stream ends', () => {
  it('is saved once the response completes, the same bytes as a normal save', async () => {
    const response = await rig.post('/api/generate', { prompt: 'a heron in the reeds', provider: 'api' });
    expect(response.status).toBe(200);
    const result = (await response.json()) as GenerationResult;
    expect(result.images).toHaveLength(1);
    const [image] = result.images;
    expect(generatedFiles()).toContain(image.filename);
    // The embedded metadata carries the revised prompt and settings the result reports.
    const entry = (await (await rig.get(`/api/history/${image.filename}`)).json()) as {
      revisedPrompt?: string;
      settings: Record<string, unknown>;
    };
    expect(entry.revisedPrompt).toBe(result.revisedPrompt);
    expect(entry.settings).toEqual(result.settings);
    const file = await rig.get(image.url);
    expect(file.status).toBe(200);
    expect(Buffer.from(await file.arrayBuffer()).length).toBe(image.bytes);
  });

  it('is removed when the connection breaks after the image and before the response completes', async () => {
    const before = generatedFiles();
    const historyBefore = ((await (await rig.get('/api/history?limit=100')).json()) as { items: unknown[] }).items.length;
    const response = await rig.post('/api/generate', { prompt: 'a kestrel hovering [sim:disconnect-after-image]', provider: 'api' });
    expect(response.status).toBe(502);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('NETWORK_FAILED');
    // The file written for the image went with the failed call (and no temp file stayed).
    await rig.studio.ctx.derived.idle();
    expect(generatedFiles()).toEqual(before);
    expect(((await (await rig.get('/api/history?limit=100')).json()) as { items: unknown[] }).items.length).toBe(historyBefore);
    // The lane is fine for the next call.
    expect((await rig.post('/api/generate', { prompt: 'a kestrel landing', provider: 'api' })).status).toBe(200);
  });
});

describe('partial images', () => {
  it('reach a live listener with their base64; with nobody listening they are replayed without it, never made', async () => {
    const { runId } = rig.studio.ctx.channel;
    // Nobody listens: the partial events are published as their replayed form.
    const quiet = await rig.post('/api/generate', { prompt: 'a quiet pond', provider: 'api', requestId: 'partials-quiet' });
    expect(quiet.status).toBe(200);
    // A listener: the same events carry the image.
    const watcher = new AbortController();
    const stream = await fetch(`${rig.studio.url}/api/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': `${runId}-0` },
      signal: watcher.signal,
    });
    const seen: Array<Record<string, unknown>> = [];
    const reading = (async () => {
      for await (const message of readSse(stream.body as ReadableStream<Uint8Array>)) {
        const event = JSON.parse(message.data) as Record<string, unknown>;
        seen.push(event);
        if (event.event === 'done' && event.requestId === 'partials-watched') return;
      }
    })();
    const watched = await rig.post('/api/generate', { prompt: 'a watched pond', provider: 'api', requestId: 'partials-watched' });
    expect(watched.status).toBe(200);
    await reading;
    watcher.abort();
    const partials = (requestId: string) => seen.filter((event) => event.event === 'partial' && event.requestId === requestId);
    expect(partials('partials-quiet').length).toBeGreaterThan(0);
    for (const event of partials('partials-quiet')) {
      expect(event.b64).toBeUndefined();
      expect(event.omitted).toEqual(['b64']);
    }
    expect(partials('partials-watched').length).toBeGreaterThan(0);
    for (const event of partials('partials-watched')) expect(typeof event.b64).toBe('string');
    // Once the watched job is over, its replayed partials lose the image as every replay does.
    const replayed = (await rig.studio.ctx.events.replay(`${runId}-0`)).filter(
      (event) => event.event === 'partial' && event.requestId === 'partials-watched',
    );
    expect(replayed.every((event) => event.b64 === undefined && (event.omitted as string[]).includes('b64'))).toBe(true);
  });
});

describe('the upstream client', () => {
  let server: Server;
  let base: string;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((request, response) => {
      if (request.url === '/json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
        return;
      }
      if (request.url === '/echo') {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const body = Buffer.concat(chunks);
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              length: body.length,
              declared: request.headers['content-length'] ?? null,
              type: request.headers['content-type'] ?? null,
              text: body.toString('latin1'),
            }),
          );
        });
        return;
      }
      // A long body its reader abandons.
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write(Buffer.alloc(64 * 1024));
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = z.object({ ok: z.boolean() });

  it('keeps a connection whose answer was read whole for the next call', async () => {
    const first = connections;
    for (let index = 0; index < 3; index += 1)
      expect(
        await callUpstream({ lane: 'test', url: `${base}/json`, timeoutMs: 5000 }, (response) => readJson('test', response, json)),
      ).toEqual({ ok: true });
    expect(connections - first).toBe(1);
  });

  it('drops a connection whose answer was abandoned, and the next call gets a fresh one', async () => {
    const abandoned = await callUpstream({ lane: 'test', url: `${base}/endless`, timeoutMs: 5000 }, async (response) => {
      for await (const chunk of response.body) return chunk.byteLength;
      return 0;
    });
    expect(abandoned).toBeGreaterThan(0);
    const before = connections;
    expect(
      await callUpstream({ lane: 'test', url: `${base}/json`, timeoutMs: 5000 }, (response) => readJson('test', response, json)),
    ).toEqual({ ok: true });
    expect(connections - before).toBe(1);
  });

  it('sends string, Blob and multipart bodies with their length and type', async () => {
    const echo = z.object({ length: z.number(), declared: z.string().nullable(), type: z.string().nullable(), text: z.string() });
    const send = (body: string | Blob | FormData, headers: Record<string, string> = {}) =>
      callUpstream({ lane: 'test', url: `${base}/echo`, body, headers, timeoutMs: 5000 }, (response) => readJson('test', response, echo));
    const text = await send('héllo', { 'content-type': 'application/json' });
    expect(text).toMatchObject({ length: 6, declared: '6', type: 'application/json' });
    const blob = await send(new Blob(['ab', new Uint8Array([0, 255]), 'cd'], { type: 'application/x-parts' }));
    expect(blob).toMatchObject({ length: 6, declared: '6', type: 'application/x-parts', text: 'ab\u0000\u00ffcd' });
    const form = new FormData();
    form.set('name', 'value');
    form.set('file', new Blob([new Uint8Array([1, 2, 3])], { type: 'image/png' }), 'a.png');
    const multipart = await send(form);
    expect(multipart.type).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipart.declared).toBe(String(multipart.length));
    expect(multipart.text).toContain('filename="a.png"');
  });

  it('reads a bounded body and refuses a larger one', async () => {
    const bytes = await callUpstream({ lane: 'test', url: `${base}/json`, timeoutMs: 5000 }, (response) =>
      readBytes('test', response, 1024),
    );
    expect(JSON.parse(bytes.toString('utf8'))).toEqual({ ok: true });
    const refused = callUpstream({ lane: 'test', url: `${base}/endless`, timeoutMs: 5000 }, (response) =>
      readBytes('test', response, 1000),
    );
    await expect(refused).rejects.toBeInstanceOf(UpstreamError);
    await expect(refused).rejects.toMatchObject({ failure: 'protocol' });
  });
});

describe('an idle pooled connection', () => {
  // A server that never closes an idle connection itself (no keep-alive
  // timeout, so no `Keep-Alive: timeout=` hint either): a connection left
  // idle in the pool is the studio's to close, before a vendor's own idle
  // timeout would close it under a later call.
  let server: Server;
  let base: string;
  const closed: Array<Promise<void>> = [];

  beforeAll(async () => {
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    });
    server.keepAliveTimeout = 0;
    server.on('connection', (socket: Socket) => closed.push(new Promise((resolve) => socket.once('close', () => resolve()))));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('is closed by the studio after a few seconds without a call', async () => {
    const json = z.object({ ok: z.boolean() });
    expect(
      await callUpstream({ lane: 'test', url: `${base}/state`, timeoutMs: 5000 }, (response) => readJson('test', response, json)),
    ).toEqual({ ok: true });
    expect(closed).toHaveLength(1);
    // Bounded: the test's own timeout ends it if the connection were kept forever.
    await closed[0];
  }, 15_000);
});
