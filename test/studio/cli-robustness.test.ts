import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/common/errors.js';
import { runSvc } from '../helpers/svc.js';
import { generationResult } from '../../src/studio/api/index.js';
import { startDemo } from '../../src/demo/demo.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// The CLI against answers it may meet from a server that is not quite this
// studio (an older one, a compatible one, a proxy): whatever comes, it exits
// with a code and a message, never a stack trace.

type Script = (request: IncomingMessage, response: ServerResponse) => void;
const scripts = new Map<string, Script>();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const script = scripts.get(`${request.method} ${request.url?.split('?')[0]}`);
    request.resume();
    request.on('end', () => (script ? script(request, response) : response.writeHead(404).end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const svc = (args: string[]) => runSvc([...args, '--server', url]);
const noStack = (stderr: string) => expect(stderr).not.toMatch(/\n\s+at |TypeError|SyntaxError/);

const sseFrame = (fields: Record<string, unknown>, event?: string) =>
  `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(fields)}\n\n`;

describe('svc against servers that answer differently', () => {
  it('an empty success (204) is success', async () => {
    scripts.set('DELETE /api/inflight/job-1', (_request, response) => response.writeHead(204).end());
    const result = await svc(['inflight', 'cancel', 'job-1']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('cancelled job-1');
  });

  it('an error body whose `error` is a string, with a sibling code', async () => {
    scripts.set('GET /api/inflight', (_request, response) =>
      response
        .writeHead(401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'Unauthorized', code: 'TOKEN_REQUIRED', message: 'Token please' })),
    );
    const withCode = await svc(['inflight', 'ls']);
    expect(withCode.code).toBe(EXIT_CODES.auth);
    expect(withCode.stderr).toContain('Token please (TOKEN_REQUIRED)');
    noStack(withCode.stderr);
  });

  it('an error body in the framework shape, or plain text', async () => {
    scripts.set('GET /api/inflight', (_request, response) =>
      response
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: 'Service Unavailable', message: 'Service Unavailable', statusCode: 503 })),
    );
    const fastifyShape = await svc(['inflight', 'ls']);
    expect(fastifyShape.code).toBe(EXIT_CODES.upstream);
    expect(fastifyShape.stderr).toContain('Service Unavailable');
    noStack(fastifyShape.stderr);

    scripts.set('GET /api/inflight', (_request, response) =>
      response.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway from the proxy'),
    );
    const text = await svc(['inflight', 'ls']);
    expect(text.code).toBe(EXIT_CODES.upstream);
    expect(text.stderr).toContain('Bad gateway from the proxy');
  });

  it('a streaming request answered with plain JSON is read as JSON', async () => {
    scripts.set('POST /api/generate', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          requestId: 'r1',
          provider: 'api',
          model: 'lang-5.6-luna',
          images: [
            { filename: 'a.png', url: '/generated/a.png', width: 8, height: 8, format: 'png', provider: 'api', model: 'lang-5.6-luna' },
          ],
        }),
      ),
    );
    const result = await svc(['generate', 'a fox', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ requestId: 'r1', images: [{ filename: 'a.png' }] });
  });

  it('SSE frames named by the standard `event:` line are understood like named payloads (done)', async () => {
    scripts.set('POST /api/generate', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(sseFrame({ phase: 'queued' }, 'phase'));
      response.write(sseFrame({ result: { requestId: 'r2', images: [] } }, 'done'));
      response.end();
    });
    const done = await svc(['generate', 'a fox', '--json']);
    expect(done.code, done.stderr).toBe(0);
    expect(JSON.parse(done.stdout)).toMatchObject({ requestId: 'r2' });
  });

  it('SSE frames named by the `event:` line (error), a frame that is not JSON skipped', async () => {
    scripts.set('POST /api/generate', (_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: not json at all\n\n');
      response.write(sseFrame({ error: { code: 'RATE_LIMITED', message: 'slow down' } }, 'error'));
      response.end();
    });
    const failed = await svc(['generate', 'a fox']);
    expect(failed.code).toBe(EXIT_CODES.upstream);
    expect(failed.stderr).toContain('slow down (RATE_LIMITED)');
    noStack(failed.stderr);
  });

  it('a field of an unexpected type is shown as it is', async () => {
    scripts.set('GET /api/inflight', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jobs: 'none today' })),
    );
    const odd = await svc(['inflight', 'ls']);
    expect(odd.code, odd.stderr).toBe(0);
    expect(odd.stdout).toContain('none today');
    noStack(odd.stderr);
  });

  it('a result whose images are not a list is shown as it is, and nothing is downloaded', async () => {
    scripts.set('POST /api/generate', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ requestId: 'r3', images: 'soon' })),
    );
    const images = await svc(['generate', 'a fox', '-o', '/tmp/never-written.png']);
    expect(images.code, images.stderr).toBe(0);
    expect(images.stdout).toContain('soon');
    noStack(images.stderr);
  });

  it('an answer that is not JSON at all is a clear error', async () => {
    scripts.set('GET /api/health', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok": true, "version": 3'),
    );
    scripts.set('GET /api/providers', (_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"providers": []}'),
    );
    const broken = await svc(['status']);
    expect(broken.code).toBe(EXIT_CODES.upstream);
    expect(broken.stderr).toContain('not JSON');
    noStack(broken.stderr);
  });
});

describe('the studio accepts what ordinary clients send', () => {
  let studio: TestStudio;

  beforeAll(async () => {
    // A demo studio (simulated upstreams, in-process), so there are real images to delete.
    const home = makeTempHome();
    const demo = await startDemo({ SVC_HOME: home });
    studio = await startTestStudio({ env: { SVC_HOME: home }, demo: demo.options, onClose: () => demo.close() });
  });

  afterAll(async () => {
    await studio.stop();
  });

  it('DELETE of a real image with a JSON content type and no body deletes it', async () => {
    const generated = await studio.request('/api/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'a doomed lighthouse', provider: 'api' }),
    });
    expect(generated.status).toBe(200);
    const [{ filename }] = generationResult.parse(await generated.json()).images;
    const listed = async () =>
      ((await (await studio.request('/api/history')).json()) as { items: { filename: string }[] }).items.map((item) => item.filename);
    expect(await listed()).toContain(filename);

    // What fetch, axios and friends send for a DELETE when a JSON content type is set by default.
    const deleted = await studio.request(`/api/history/${filename}`, { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ filename, deletedAt: expect.any(String) });
    expect(await listed()).not.toContain(filename);
    expect((await studio.request(`/api/history/${filename}`)).status).toBe(404);
  });

  it('a DELETE or a body-less POST with a JSON content type and no body', async () => {
    const deleted = await studio.request('/api/history/20250101-000000-nothing-0000000000.png', {
      method: 'DELETE',
      headers: { 'content-type': 'application/json' },
    });
    expect(deleted.status).toBe(404);
    expect((await deleted.json()).error.code).toBe('NOT_FOUND');
    const restored = await studio.request('/api/history/20250101-000000-nothing-0000000000.png/restore', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    });
    expect((await restored.json()).error.code).toBe('NOT_FOUND');
    const cancel = await studio.request('/api/inflight/nothing', { method: 'DELETE', headers: { 'content-type': 'application/json' } });
    expect((await cancel.json()).error.code).toBe('JOB_NOT_FOUND');
    // Whitespace is no body either; broken JSON is still refused.
    const spaces = await studio.request('/api/storage/open-generated-dir', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '  ',
    });
    expect(spaces.status).not.toBe(400);
    const bad = await studio.request('/api/defaults', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect((await bad.json()).error.code).toBe('INVALID_JSON');
  });
});
