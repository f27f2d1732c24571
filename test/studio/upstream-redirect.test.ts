import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUpstream, readBytes, UpstreamError } from '../../src/studio/upstream/index.js';

// Issue 45 item 10: a result link answering a redirect was retried until the
// job's deadline (140 s) instead of failing at once. A redirect is never
// followed, and it is not transient: the call fails, not retryable, naming it.

let server: Server;
let asked = 0;
beforeAll(async () => {
  server = createServer((_request, response) => {
    asked += 1;
    response.writeHead(302, { location: 'https://elsewhere.example/clip.mp4' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('a redirect from an upstream', () => {
  it('fails the call once, not retryable, with the redirect named', async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/clip.mp4`;
    const failure = await callUpstream({ lane: 'alpha-api', url, timeoutMs: 10_000 }, (response) =>
      readBytes('alpha-api', response, 1024),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).retryable).toBe(false);
    expect((failure as UpstreamError).message).toMatch(/redirect \(302\), never followed/);
    expect(asked).toBe(1);
  });
});
