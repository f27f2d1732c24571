import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, fingerprintSecret, formField, type Simulator } from '../../src/sim/harness.js';
import { postJson, readSse } from './sse-client.js';

let sim: Simulator;
let url: string;

beforeAll(async () => {
  sim = createSimulator({ name: 'test' });
  sim.route('GET', '/hello', (_request, response) => response.json(200, { hello: 'world' }));
  sim.route('POST', '/echo/:name', (request, response) =>
    response.json(200, { name: request.params.name, body: request.body, query: Object.fromEntries(request.query) }),
  );
  sim.route('POST', '/upload', (request, response) =>
    response.json(200, {
      prompt: request.form ? formField(request.form, 'prompt') : null,
      files:
        request.form?.files.map((file) => ({ name: file.name, filename: file.filename, type: file.contentType, size: file.data.length })) ??
        [],
      error: request.bodyError ?? null,
    }),
  );
  sim.route('GET', '/stream', async (request, response) => {
    response.startStream();
    for (let index = 0; index < 5; index += 1) {
      if (!(await response.event('tick', { index }))) return;
    }
    response.endStream();
  });
  sim.route('GET', '/slow-stream', async (request, response) => {
    response.startStream();
    for (let index = 0; index < 1000 && !request.signal.aborted; index += 1) {
      if (!(await response.event('tick', { index }))) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    response.endStream();
  });
  sim.route('GET', '/crash', () => {
    throw new Error('boom');
  });
  url = await sim.start();
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => {
  sim.clearFaults();
  sim.clearRequests();
});

describe('routes and request log', () => {
  it('answers registered routes with params, query and JSON body', async () => {
    const response = await postJson(`${url}/echo/alpha?x=1`, { a: 1 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'alpha', body: { a: 1 }, query: { x: '1' } });
  });

  it('answers unknown routes with a vendor-style 404', async () => {
    const response = await fetch(`${url}/nope`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { message: 'Invalid URL (GET /nope)' } });
    expect(sim.lastRequest()?.route).toBeNull();
  });

  it('logs method, path, masked headers, fingerprint and masked secret body fields', async () => {
    await postJson(
      `${url}/echo/b`,
      { refresh_token: 'rt_very_secret_value_123', keep: 'visible' },
      { authorization: 'Bearer sk-secret-key-abcdef' },
    );
    const entry = sim.lastRequest({ route: 'POST /echo/:name' })!;
    expect(entry.method).toBe('POST');
    expect(entry.path).toBe('/echo/b');
    expect(entry.status).toBe(200);
    expect(entry.outcome).toBe('completed');
    expect(entry.headers.authorization).toBe('Bearer sk-s…cdef');
    expect(JSON.stringify(entry)).not.toContain('sk-secret-key-abcdef');
    expect(JSON.stringify(entry)).not.toContain('rt_very_secret_value_123');
    expect(entry.body).toMatchObject({ keep: 'visible' });
    expect(entry.credentialFingerprint).toBe(fingerprintSecret('sk-secret-key-abcdef'));
  });

  it('parses multipart bodies', async () => {
    const form = new FormData();
    form.append('prompt', 'a cat; "quoted"');
    form.append('image[]', new Blob([Buffer.from('abc')], { type: 'image/png' }), 'a.png');
    form.append('image[]', new Blob([Buffer.from('defg')], { type: 'image/webp' }), 'b.webp');
    const response = await fetch(`${url}/upload`, { method: 'POST', body: form });
    expect(await response.json()).toEqual({
      prompt: 'a cat; "quoted"',
      files: [
        { name: 'image[]', filename: 'a.png', type: 'image/png', size: 3 },
        { name: 'image[]', filename: 'b.webp', type: 'image/webp', size: 4 },
      ],
      error: null,
    });
    expect(sim.lastRequest()?.body).toMatchObject({
      fields: { prompt: 'a cat; "quoted"' },
      files: [
        { filename: 'a.png', size: 3 },
        { filename: 'b.webp', size: 4 },
      ],
    });
  });

  it('reports a broken multipart body to the handler', async () => {
    const response = await fetch(`${url}/upload`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
      body: 'garbage',
    });
    expect(await response.json()).toMatchObject({ error: 'invalid_multipart' });
  });

  it('answers 500 when a handler throws', async () => {
    const response = await fetch(`${url}/crash`);
    expect(response.status).toBe(500);
  });

  it('streams SSE events with event and data lines', async () => {
    const result = await readSse(await fetch(`${url}/stream`));
    expect(result.headers.get('content-type')).toContain('text/event-stream');
    expect(result.cut).toBe(false);
    expect(result.events.map((event) => event.event)).toEqual(['tick', 'tick', 'tick', 'tick', 'tick']);
    expect(result.events.map((event) => event.data?.index)).toEqual([0, 1, 2, 3, 4]);
    const entry = await sim.waitForRequest((request) => request.path === '/stream');
    expect(entry).toMatchObject({ streamed: true, eventsSent: 5, outcome: 'completed' });
  });

  it('records a client abort of a stream and closes it', async () => {
    const controller = new AbortController();
    const response = await fetch(`${url}/slow-stream`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const entry = await sim.waitForRequest((request) => request.path === '/slow-stream');
    expect(entry.outcome).toBe('client-aborted');
    expect(sim.openStreams()).toBe(0);
  });
});

describe('fault injection (in-process)', () => {
  it('answers an injected status with the given body and headers, once by default', async () => {
    sim.fault('GET /hello', { status: 503, body: { error: { code: 'busy' } }, headers: { 'retry-after': '2' } });
    const first = await fetch(`${url}/hello`);
    expect(first.status).toBe(503);
    expect(first.headers.get('retry-after')).toBe('2');
    expect(await first.json()).toEqual({ error: { code: 'busy' } });
    const second = await fetch(`${url}/hello`);
    expect(second.status).toBe(200);
    expect(sim.requests({ route: 'GET /hello' })[0].faults).toContain('status:503');
  });

  it('applies a fault `times` times, or always until cleared', async () => {
    sim.fault('GET /hello', { status: 500, times: 2 });
    expect((await fetch(`${url}/hello`)).status).toBe(500);
    expect((await fetch(`${url}/hello`)).status).toBe(500);
    expect((await fetch(`${url}/hello`)).status).toBe(200);
    sim.fault('*', { status: 418, times: 'always' });
    expect((await fetch(`${url}/hello`)).status).toBe(418);
    expect((await fetch(`${url}/hello`)).status).toBe(418);
    sim.clearFaults();
    expect((await fetch(`${url}/hello`)).status).toBe(200);
  });

  it('uses the simulator error body when a fault has none', async () => {
    sim.fault('GET /hello', { status: 502 });
    const response = await fetch(`${url}/hello`);
    expect(await response.json()).toEqual({ error: { message: 'Simulated HTTP 502.', type: 'server_error', code: null } });
  });

  it('adds latency before answering', async () => {
    sim.fault('GET /hello', { latencyMs: 150 });
    const response = await fetch(`${url}/hello`);
    expect(response.status).toBe(200);
    expect(sim.lastRequest()?.faults).toContain('latency:150');
  });

  it('lets a client give up during injected latency', async () => {
    sim.fault('GET /hello', { latencyMs: 5000 });
    await expect(fetch(`${url}/hello`, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    const entry = await sim.waitForRequest((request) => request.path === '/hello');
    expect(entry.outcome).toBe('client-aborted');
  });

  it('cuts a stream after N events with no clean end', async () => {
    sim.fault('GET /stream', { disconnectAfterEvents: 2 });
    const result = await readSse(await fetch(`${url}/stream`));
    expect(result.cut).toBe(true);
    expect(result.events).toHaveLength(2);
    const entry = await sim.waitForRequest((request) => request.path === '/stream');
    expect(entry.outcome).toBe('cut-by-fault');
  });

  it('cuts any answer after N bytes', async () => {
    sim.fault('GET /hello', { disconnectAfterBytes: 5 });
    const response = await fetch(`${url}/hello`);
    await expect(response.text()).rejects.toThrow();
    sim.fault('GET /hello', { disconnectAfterBytes: 0 });
    await expect(fetch(`${url}/hello`)).rejects.toThrow();
  });

  it('emits a truncated JSON data line on a stream, and a truncated JSON body', async () => {
    sim.fault('GET /stream', { malformed: true });
    const result = await readSse(await fetch(`${url}/stream`));
    expect(result.events).toHaveLength(5);
    expect(result.events[0].data).toEqual({ index: 0 });
    expect(result.events[1].data).toBeUndefined();
    expect(result.events[1].raw).toBe('{"ind');
    sim.fault('GET /stream', { malformed: 3 });
    const third = await readSse(await fetch(`${url}/stream`));
    expect(third.events[3].data).toBeUndefined();
    sim.fault('GET /hello', { malformed: true });
    const response = await fetch(`${url}/hello`);
    await expect(response.json()).rejects.toThrow();
  });

  it('refuses faults for routes that do not exist', () => {
    expect(() => sim.fault('GET /missing', { status: 500 })).toThrow(/No route/);
  });
});

describe('control endpoint (out-of-process)', () => {
  it('adds, lists and clears faults over HTTP', async () => {
    const added = await postJson(`${url}/__sim/faults`, { route: 'GET /hello', status: 429, times: 1 });
    expect(added.status).toBe(201);
    const listed = (await (await fetch(`${url}/__sim/faults`)).json()) as { faults: { route: string }[] };
    expect(listed.faults).toHaveLength(1);
    expect((await fetch(`${url}/hello`)).status).toBe(429);
    await postJson(`${url}/__sim/faults`, [{ route: 'GET /hello', status: 500, times: 'always' }]);
    expect((await fetch(`${url}/hello`)).status).toBe(500);
    const cleared = await fetch(`${url}/__sim/faults`, { method: 'DELETE' });
    expect(cleared.status).toBe(200);
    expect((await fetch(`${url}/hello`)).status).toBe(200);
  });

  it('rejects invalid faults with a reason', async () => {
    const badRoute = await postJson(`${url}/__sim/faults`, { route: 'GET /missing', status: 500 });
    expect(badRoute.status).toBe(400);
    const badField = await postJson(`${url}/__sim/faults`, { route: 'GET /hello', latencyMs: -1 });
    expect(badField.status).toBe(400);
    expect(((await badField.json()) as { error: { message: string } }).error.message).toMatch(/latencyMs/);
  });

  it('serves the request log (without control requests) and clears it', async () => {
    await fetch(`${url}/hello`);
    await postJson(`${url}/echo/x`, { long: 'y'.repeat(2000) });
    const log = (await (await fetch(`${url}/__sim/requests?route=${encodeURIComponent('POST /echo/:name')}`)).json()) as {
      requests: { path: string; body: { long: string } }[];
    };
    expect(log.requests.map((entry) => entry.path)).toEqual(['/echo/x']);
    expect(log.requests[0].body.long.length).toBeLessThan(2000);
    const all = (await (await fetch(`${url}/__sim/requests`)).json()) as { requests: unknown[] };
    expect(all.requests).toHaveLength(2);
    await fetch(`${url}/__sim/requests`, { method: 'DELETE' });
    expect(sim.requests()).toHaveLength(0);
  });

  it('reports health and routes', async () => {
    const health = (await (await fetch(`${url}/__sim/health`)).json()) as { name: string; routes: string[] };
    expect(health.name).toBe('test');
    expect(health.routes).toContain('GET /hello');
  });
});
