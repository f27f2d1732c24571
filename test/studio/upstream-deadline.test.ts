import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callUpstream, readEventStream, UpstreamError } from '../../src/studio/upstream/index.js';

// Issue 33, item 3: with SVC_API_TIMEOUT_MS=3000, 8 of 47 stalled calls ran
// past their budget and their cancel. The cause: Node 20's fetch, sending its
// body without a clone (`redirect: 'error'`, kept for memory), may not carry an
// abort to the response body when the answer began while the request body was
// still being sent (a vendor that answers its head before reading a large
// upload, then stalls). The body read then waited for the vendor forever. Here a real loopback server stalls in
// every way we know, and each call must end by its deadline or its cancel.

const TIMEOUT_MS = 300;
/** Generous: the call must end well before twice its budget (it used to never end). */
const BOUND_MS = 2 * TIMEOUT_MS;

/** How the stand-in vendor stalls. */
const STALLS = {
  /** Takes the connection and never reads or answers. */
  silent: () => undefined,
  /** Reads the request, never answers. */
  'no-answer': () => undefined,
  /** Half a status line. */
  'half-head': (socket: Socket) => socket.write('HTTP/1.1 200 OK\r\n'),
  /** An event stream head and half an event, before the upload is read: the case that escaped. */
  'early-stream': (socket: Socket) =>
    socket.write('HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n10\r\ndata: {"type":'),
  /** An error status whose body never ends. */
  'error-body': (socket: Socket) =>
    socket.write('HTTP/1.1 500 Internal Server Error\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"error":'),
  /** A redirect (refused, never followed). */
  redirect: (socket: Socket) => socket.end('HTTP/1.1 302 Found\r\nlocation: http://127.0.0.1:9/\r\ncontent-length: 0\r\n\r\n'),
} as const;
type Stall = keyof typeof STALLS;

let server: Server;
let base: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let answered = false;
    socket.on('data', (chunk) => {
      const stall = /^POST \/(\S+) /.exec(chunk.toString('latin1'))?.[1] as Stall | undefined;
      if (stall === 'silent') socket.pause();
      if (answered || !stall || !(stall in STALLS)) return;
      answered = true;
      STALLS[stall](socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  base = `http://127.0.0.1:${address.port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

/** A request body large enough to be still uploading when the answer begins (a reference image's worth). */
const UPLOAD = new Blob([Buffer.alloc(16 * 1024 * 1024, 0x61)]);

/** One stalled call; what it threw and how long it took. */
async function stalledCall(stall: Stall, signal?: AbortSignal): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const error = await callUpstream(
    { lane: 'api', url: `${base}/${stall}`, method: 'POST', body: UPLOAD, timeoutMs: TIMEOUT_MS, ...(signal ? { signal } : {}) },
    async (response) => {
      for await (const message of readEventStream('api', response)) void message;
      return 'ended';
    },
  ).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return { error, ms: performance.now() - started };
}

describe('upstream calls end by their deadline and on cancel', () => {
  it('ten stalled calls in a row, each way of stalling, each end by the deadline with `timeout`', { timeout: 60_000 }, async () => {
    for (const stall of ['silent', 'no-answer', 'half-head', 'early-stream', 'error-body'] as const) {
      for (let call = 0; call < 10; call += 1) {
        const { error, ms } = await stalledCall(stall);
        expect(error, `${stall} #${call}`).toBeInstanceOf(UpstreamError);
        expect((error as UpstreamError).failure, `${stall} #${call}`).toBe('timeout');
        expect(ms, `${stall} #${call}`).toBeLessThan(BOUND_MS);
      }
    }
  });

  it(
    'stalled calls cancelled by their job end with the job’s reason, alternating with timeouts on the same origin',
    { timeout: 60_000 },
    async () => {
      for (const stall of ['no-answer', 'early-stream', 'error-body'] as const) {
        for (let call = 0; call < 6; call += 1) {
          const job = new AbortController();
          const reason = new Error('cancelled by the client');
          const cancels = call % 2 === 1;
          if (cancels) setTimeout(() => job.abort(reason), TIMEOUT_MS / 3);
          const { error, ms } = await stalledCall(stall, job.signal);
          if (cancels) expect(error, `${stall} #${call}`).toBe(reason);
          else expect((error as UpstreamError).failure, `${stall} #${call}`).toBe('timeout');
          expect(ms, `${stall} #${call}`).toBeLessThan(BOUND_MS);
        }
      }
    },
  );

  it('a call whose job was cancelled before it began does not start', async () => {
    const job = new AbortController();
    const reason = new Error('cancelled before');
    job.abort(reason);
    expect((await stalledCall('no-answer', job.signal)).error).toBe(reason);
  });

  it('still refuses a redirect (never followed)', async () => {
    const { error } = await stalledCall('redirect');
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ failure: 'network', stage: 'connect' });
    expect((error as UpstreamError).message).toMatch(/redirect/);
  });
});
