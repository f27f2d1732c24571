import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { VERSION } from '../../common/version.js';

// One HTTP exchange with an upstream, over node:http(s) and one keep-alive
// agent per scheme. Not fetch: an image's event stream is hundreds of KB in
// some 20 chunks, and fetch hands each chunk through a web stream (a promise
// and a queue entry per chunk) and builds its Request and Headers objects;
// reading the same stream from the socket's own Readable costs about 1 ms of
// CPU less per call (bench/generate, docs/ARCHITECTURE.md "Benchmarks").
// Redirects are never followed (a 3xx is an answer like any other); the body
// is sent as given (a Blob's parts are streamed, never joined into one string).

/** What a reader sees of an upstream answer. */
export interface UpstreamResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: HeaderReader;
  /** The body's bytes as they arrive; read once (upstream/read.ts reads it within bounds). */
  readonly body: AsyncIterable<Uint8Array>;
}

/** Reads a header by name (any case); several values of one name come joined with `, `. */
export interface HeaderReader {
  get(name: string): string | null;
}

export interface Exchange {
  readonly response: UpstreamResponse;
  /**
   * Ends the exchange: an answer received whole goes back to the pool (what its reader left
   * unread is drained: it has all arrived), any other drops its connection.
   */
  readonly release: () => void;
}

export interface ExchangeRequest {
  readonly url: string;
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Blob | FormData;
  /** Aborting drops the connection, whatever the exchange is doing. */
  readonly signal: AbortSignal;
}

/**
 * An idle pooled connection is closed after this long, before a server's own
 * idle timeout would (Node's servers: 5 s; a server's `Keep-Alive: timeout=`
 * hint, when shorter, wins): a connection the server already closed is not
 * picked for the next call. The same default as fetch's (undici's 4 s).
 */
const IDLE_CONNECTION_MS = 4_000;
const AGENT_OPTIONS = { keepAlive: true, scheduling: 'lifo', timeout: IDLE_CONNECTION_MS } as const;
const agents = { 'http:': new http.Agent(AGENT_OPTIONS), 'https:': new https.Agent(AGENT_OPTIONS) };
const USER_AGENT = `svc-studio/${VERSION}`;

class AnswerHeaders implements HeaderReader {
  constructor(private readonly raw: IncomingMessage['headers']) {}
  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }
}

/** The body as bytes to send, with the length and type a server expects (as fetch would set them). */
async function encodeBody(body: string | Blob | FormData): Promise<{ data: string | Buffer | Blob; length: number; type?: string }> {
  if (typeof body === 'string') return { data: body, length: Buffer.byteLength(body), type: 'text/plain;charset=UTF-8' };
  if (body instanceof Blob) return { data: body, length: body.size, ...(body.type ? { type: body.type } : {}) };
  // multipart/form-data, its boundary chosen by the platform's encoder.
  const encoded = new Response(body);
  const data = Buffer.from(await encoded.arrayBuffer());
  return { data, length: data.length, type: encoded.headers.get('content-type') ?? undefined };
}

/**
 * Sends one request; resolves with the answer once its head arrived (the body
 * is read by the caller), rejects on a transport failure before that.
 */
export async function exchange(request: ExchangeRequest): Promise<Exchange> {
  const url = new URL(request.url);
  const agent = agents[url.protocol as keyof typeof agents];
  if (!agent) throw new Error(`unsupported protocol ${url.protocol}`);
  const headers: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  const body = request.body === undefined ? undefined : await encodeBody(request.body);
  if (body) {
    headers['content-length'] = String(body.length);
    if (body.type && !headers['content-type']) headers['content-type'] = body.type;
  }
  const { signal } = request;
  // Aborted before it was sent (a cancelled job, its body still being encoded): nothing goes out.
  if (signal.aborted) throw new Error('aborted before it was sent');
  const send = url.protocol === 'https:' ? https.request : http.request;
  const outgoing = send(url, { method: request.method, headers, agent });
  let answer: IncomingMessage | undefined;
  const drop = () => {
    outgoing.destroy();
    answer?.destroy();
  };
  signal.addEventListener('abort', drop, { once: true });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve);
    // Later errors (the connection lost mid-body) reach the reader through the answer's stream.
    outgoing.on('error', reject);
    outgoing.once('close', () => reject(new Error('the connection closed before an answer')));
  });
  if (!body) outgoing.end();
  else if (!(body.data instanceof Blob)) outgoing.end(body.data);
  // The server may answer (an error) before reading all of a large body; the answer is what counts.
  else
    pipeline(Readable.fromWeb(body.data.stream() as import('node:stream/web').ReadableStream<Uint8Array>), outgoing).catch(() =>
      outgoing.destroy(),
    );
  try {
    answer = await answered;
  } catch (error) {
    signal.removeEventListener('abort', drop);
    drop();
    throw error;
  }
  const message = answer;
  // A reader sees a broken body through its iteration; an answer nobody reads must not throw unheard.
  message.on('error', () => {});
  const status = message.statusCode ?? 0;
  return {
    response: {
      status,
      ok: status >= 200 && status < 300,
      headers: new AnswerHeaders(message.headers),
      // A reader that stops early does not destroy the stream: release() decides (a whole answer keeps its connection).
      body: { [Symbol.asyncIterator]: () => message.iterator({ destroyOnReturn: false }) },
    },
    release() {
      signal.removeEventListener('abort', drop);
      if (message.complete && !message.destroyed) message.resume();
      else drop();
    },
  };
}
