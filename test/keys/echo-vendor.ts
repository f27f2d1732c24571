import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A stand-in vendor that quotes the credential it was sent back in its error
// answers: in the code, the type and the message, spelled the way the request
// asks. Real vendors do this ("Incorrect API key provided: sk-…"); some echo
// it decoded, encoded or upper-cased. The prompt picks the spelling with
// `[echo:<spelling>]` and, for the Responses protocol, the envelope with
// `[shape:<shape>]`.

export const SPELLINGS = {
  verbatim: (key: string) => key,
  'url-encoded': (key: string) => encodeURIComponent(key),
  base64: (key: string) => Buffer.from(key).toString('base64'),
  base64url: (key: string) => Buffer.from(key).toString('base64url'),
  'upper-cased': (key: string) => key.toUpperCase(),
} as const;
export type Spelling = keyof typeof SPELLINGS;

/** The Responses protocol's error envelopes: an HTTP error object, the bare string of the issue, an error event in a 200 stream. */
export const SHAPES = ['http', 'string', 'stream'] as const;
export type Shape = (typeof SHAPES)[number];

export interface EchoVendor {
  readonly url: string;
  close(): Promise<void>;
}

/** The credential as the request carried it: a bearer token, the key header, or `?key=`. */
function credentialOf(request: IncomingMessage): string {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  const header = request.headers['x-goog-api-key'];
  return (
    bearer ??
    (typeof header === 'string' ? header : undefined) ??
    new URL(request.url ?? '/', 'http://vendor').searchParams.get('key') ??
    ''
  );
}

function answer(request: IncomingMessage, body: string, response: ServerResponse): void {
  const spelling = (/\[echo:([\w-]+)\]/.exec(body)?.[1] ?? 'verbatim') as Spelling;
  const shape = (/\[shape:(\w+)\]/.exec(body)?.[1] ?? 'http') as Shape;
  const echoed = SPELLINGS[spelling](credentialOf(request));
  const text = `Incorrect API key provided: ${echoed}`;
  const json = (status: number, value: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };
  if (request.url?.includes(':generateContent')) {
    // google.rpc.Status: the status name is our code, the ErrorInfo reason our type.
    json(400, {
      error: {
        code: 400,
        status: echoed,
        message: text,
        details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: echoed }],
      },
    });
    return;
  }
  if (shape === 'string') return json(400, { error: text });
  if (shape === 'stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: echoed, code: echoed, message: text } })}\n\n`);
    return;
  }
  json(400, { error: { code: echoed, type: echoed, message: text } });
}

export async function startEchoVendor(): Promise<EchoVendor> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answer(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
