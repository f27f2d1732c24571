import { randomBytes, timingSafeEqual } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { endpointName, tokenProof, TOKEN_PROOF_PATH, type TokenProofAnswer } from '../chat/http/token-proof.js';
import { MANAGER_LIMITS } from './limits.js';

// The manager's one way to reach a worker. Every request gets its own
// connection, and when the manager has a token for the worker, that very
// connection is first made to prove the worker holds it (token-proof.ts):
// the token only ever travels on a connection whose other end proved it,
// so a stranger on a discovery port, or on the port of a worker that has
// since stopped, never receives it. No redirect is followed, and every
// body and line read is capped (MANAGER_LIMITS.workerReadMaxBytes).

/** The most a token-proof answer may take. */
const PROOF_ANSWER_MAX_BYTES = 4096;

/** The worker did not prove it holds the token: nothing was sent with it. */
export class TokenProofError extends Error {
  constructor(why: string) {
    super(`did not prove it holds the token (${why}); the token was not sent`);
    this.name = 'TokenProofError';
  }
}

function openSocket(url: URL, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port) });
    const fail = (error: unknown) => {
      socket.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onAbort = () => fail(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('error', fail);
    socket.once('connect', () => {
      socket.off('error', fail);
      // An error between the proof and the request's own listeners must not go unhandled: the request then fails on the closed socket.
      socket.on('error', () => {});
      signal.removeEventListener('abort', onAbort);
      resolve(socket);
    });
  });
}

/**
 * Asks the worker at the other end of `socket` to prove it holds `token`.
 * Resolves `proven` or `tokenless` (it needs no token: none will be sent);
 * rejects otherwise. A minimal HTTP/1.1 exchange read by hand, so that the
 * connection stays ours and the request after it goes on the same one.
 */
function proveOn(socket: Socket, hostHeader: string, token: string, signal: AbortSignal): Promise<'proven' | 'tokenless'> {
  const nonce = randomBytes(16).toString('hex');
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const settle = (error: Error | undefined, outcome?: 'proven' | 'tokenless') => {
      socket.off('data', onData);
      socket.off('close', onClose);
      socket.off('error', onError);
      signal.removeEventListener('abort', onAbort);
      // Held until the next request's parser takes over (resumed on its `socket` event).
      socket.pause();
      if (error) reject(error);
      else resolve(outcome as 'proven' | 'tokenless');
    };
    const onClose = () => settle(new TokenProofError('the connection closed'));
    // A stranger that never answers is given up on with the request's budget.
    const onAbort = () => settle(new TokenProofError('no answer in time'));
    const onError = (error: Error) => settle(error);
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length > PROOF_ANSWER_MAX_BYTES) return settle(new TokenProofError('answer too large'));
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const head = received.subarray(0, headEnd).toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1];
      const length = /\r\ncontent-length: *(\d+)\r?$/im.exec(head)?.[1];
      if (status !== '200')
        return settle(new TokenProofError(`${TOKEN_PROOF_PATH} answered ${status ? `HTTP ${status}` : 'no HTTP/1.1 status'}`));
      if (length === undefined || /\r\nconnection: *close/i.test(head)) return settle(new TokenProofError('unexpected answer framing'));
      const bodyEnd = headEnd + 4 + Number(length);
      if (received.length < bodyEnd) return;
      if (received.length > bodyEnd) return settle(new TokenProofError('bytes after the answer'));
      let answer: Partial<TokenProofAnswer>;
      try {
        answer = JSON.parse(received.subarray(headEnd + 4).toString('utf8')) as Partial<TokenProofAnswer>;
      } catch {
        return settle(new TokenProofError('not JSON'));
      }
      if (answer?.service !== 'svc-chat') return settle(new TokenProofError('not an agent chat server'));
      if (answer.proof === null) return settle(undefined, 'tokenless');
      // The endpoint this connection reached, as the worker names the one it listens on.
      const expected = Buffer.from(tokenProof(token, nonce, endpointName(socket.remoteAddress, socket.remotePort)));
      const given = Buffer.from(typeof answer.proof === 'string' ? answer.proof : '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return settle(new TokenProofError('wrong proof'));
      settle(undefined, 'proven');
    };
    if (signal.aborted) return onAbort();
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.write(`GET ${TOKEN_PROOF_PATH}?nonce=${nonce} HTTP/1.1\r\nHost: ${hostHeader}\r\nAccept: application/json\r\n\r\n`);
  });
}

/**
 * GETs a fixed path of a worker (never one from a request) on a connection of
 * its own, proven first when there is a token. Resolves with the response
 * once its head arrived; a redirect or any status but 200 is an error.
 */
export async function getWorker(
  origin: string,
  path: string,
  token: string | undefined,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const url = new URL(path, origin);
  const socket = await openSocket(url, signal);
  try {
    const sendToken = token !== undefined && (await proveOn(socket, url.host, token, signal)) === 'proven';
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const request = httpRequest({
        createConnection: () => socket,
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        headers: { host: url.host, ...headers, ...(sendToken && { authorization: `Bearer ${token}` }) },
        signal,
      });
      request.once('socket', (given) => given.resume());
      request.once('response', resolve);
      // Kept for the request's whole life: a late error (the worker gone mid-body) reaches the body's reader instead.
      request.on('error', reject);
      request.end();
    });
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      response.destroy();
      throw new Error(
        status >= 300 && status < 400
          ? `${path} answered a redirect (HTTP ${status}): redirects are not followed`
          : `${path} answered HTTP ${status}`,
      );
    }
    return response;
  } catch (error) {
    socket.destroy();
    throw error;
  }
}

/** A whole body, refused past the read cap. */
export async function readCapped(response: IncomingMessage, what: string): Promise<Buffer> {
  const max = MANAGER_LIMITS.workerReadMaxBytes;
  if (Number(response.headers['content-length'] ?? 0) > max) {
    response.destroy();
    throw new Error(`${what}: the body is over ${max} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      response.destroy();
      throw new Error(`${what}: the body is over ${max} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** GETs one of a worker's own JSON routes, within the request time budget and the read cap. */
export async function getWorkerJson(origin: string, path: string, token: string | undefined, signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(MANAGER_LIMITS.workerRequestTimeoutMs);
  const budget = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const response = await getWorker(origin, path, token, { accept: 'application/json' }, budget);
  return JSON.parse((await readCapped(response, path)).toString('utf8')) as unknown;
}

/** Undefined when the origin answers as an agent chat server (and proved it holds the token, when there is one); else why not. */
export async function chatServerCheck(origin: string, token: string | undefined, signal?: AbortSignal): Promise<string | undefined> {
  try {
    const health = (await getWorkerJson(origin, '/api/health', token, signal)) as { ok?: unknown; service?: unknown } | null;
    return health?.ok === true && health.service === 'svc-chat' ? undefined : 'it did not answer GET /api/health as an agent chat server';
  } catch (error) {
    return (error as Error).message.slice(0, MANAGER_LIMITS.workerFieldMaxChars);
  }
}
