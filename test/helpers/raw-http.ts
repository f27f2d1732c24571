import { request } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An HTTP request with full control of headers (fetch forbids setting Host, Origin and friends). */
export function rawRequest(
  url: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
    bodyStream?: (write: (chunk: string) => void) => void;
  },
): Promise<RawResponse> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        setHost: !options.headers?.host && !options.headers?.Host,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/**
 * Sends a POST's headers and the start of its JSON body, then nothing more; resolves with what the
 * server wrote once it closes the socket (the caller's test timeout bounds the wait).
 */
export function stallBody(url: string, path: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    // A reset is a close too ('close' follows 'error').
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(text));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: localhost:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"prompt":`,
    );
  });
}
