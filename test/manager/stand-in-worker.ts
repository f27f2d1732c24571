import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One route of a stand-in: answers a request however the test needs (a stranger, a hostile worker). */
export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

export interface StandInWorker {
  url: string;
  port: number;
  /** Every request received: path with query, and headers. */
  requests: Array<{ url: string; headers: IncomingHttpHeaders }>;
  close(): Promise<void>;
}

export const json = (response: ServerResponse, body: unknown): void => {
  const text = JSON.stringify(body);
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
};

/** An event stream held open, with what the test writes to it. */
export const events =
  (write: (response: ServerResponse) => void = () => {}): Handler =>
  (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    response.write(': hello\n\n');
    write(response);
  };

/** Writes `piece` again and again (minding back-pressure) until the client goes; `onEnd` gets the bytes written. */
export function endless(response: ServerResponse, piece: string, onEnd: (bytes: number) => void): void {
  let bytes = 0;
  let gone = false;
  response.once('close', () => {
    gone = true;
    onEnd(bytes);
  });
  const pump = () => {
    while (!gone) {
      bytes += piece.length;
      if (!response.write(piece)) return void response.once('drain', pump);
    }
  };
  pump();
}

/**
 * Something on a loopback port that answers like an agent chat server
 * (health, a token-less proof, empty state, a quiet event stream) except
 * where `routes` (by path, without the query) says otherwise. A test double
 * of a stranger or a hostile worker: never our own code.
 */
export async function startStandInWorker(routes: Record<string, Handler> = {}, port = 0): Promise<StandInWorker> {
  const requests: StandInWorker['requests'] = [];
  const defaults: Record<string, Handler> = {
    '/api/health': (_request, response) => json(response, { ok: true, service: 'svc-chat', version: 'stand-in' }),
    '/api/token-proof': (_request, response) => json(response, { service: 'svc-chat', proof: null }),
    '/api/status': (_request, response) => json(response, { queues: [], goal: null }),
    '/api/sessions': (_request, response) => json(response, { sessions: [] }),
    '/api/events': events(),
  };
  const server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    const path = (request.url ?? '').split('?')[0];
    const handler = routes[path] ?? defaults[path];
    if (handler) handler(request, response);
    else response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":"NOT_FOUND"}}');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
