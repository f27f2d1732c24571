import { connect, type Socket } from 'node:net';
import { request } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_LIMITS, createHttpApp } from '../../src/common/http-app.js';

// Issue 33, item 8, on the HTTP base both servers share (createHttpApp).
//
// 1,024 connections that never finish their request head
// took every slot of the server (maxConnections) and locked every client out
// until the headers timeout. Now they hold at most a share of the slots: a
// client that sends a complete request gets in and is answered.

let app: FastifyInstance;
let port: number;
const halfOpen: Socket[] = [];

beforeAll(async () => {
  app = createHttpApp({ bodyLimit: 1024, security: { allowedOrigins: [] } });
  app.get('/ping', async () => ({ ok: true }));
  app.post('/echo', async (request) => ({ body: request.body ?? null }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  for (const socket of halfOpen) socket.destroy();
  await app.close();
});

/** A connection that sends half a request head and then nothing. */
function openHalf(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write('GET /ping HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

function get(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

const connections = () =>
  new Promise<number>((resolve, reject) => app.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

describe('half-open connections', () => {
  it('cannot take every slot: a complete request is answered while a full server worth of them wait', async () => {
    for (let index = 0; index < CONNECTION_LIMITS.maxConnections; index += 1) halfOpen.push(await openHalf());
    // Every one was accepted and then the oldest beyond the share were closed.
    let open = await connections();
    for (let round = 0; round < 50 && open > CONNECTION_LIMITS.halfOpenShare; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      open = await connections();
    }
    expect(open).toBeLessThanOrEqual(CONNECTION_LIMITS.halfOpenShare);
    for (let index = 0; index < 5; index += 1) expect(await get('/ping')).toBe(200);
    // The newest half-open connections are the ones kept.
    expect(halfOpen.at(-1)?.destroyed).toBe(false);
  });
});

describe('compressed bodies', () => {
  it('are refused by name with 415 UNSUPPORTED_MEDIA_TYPE, not read as bad JSON', async () => {
    const url = `http://127.0.0.1:${port}/echo`;
    for (const encoding of ['gzip', 'br', 'deflate']) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body: gzipSync('{"a":1}'),
      });
      expect(response.status, encoding).toBe(415);
      expect(await response.json(), encoding).toMatchObject({
        error: { code: 'UNSUPPORTED_MEDIA_TYPE', details: { contentEncoding: encoding } },
      });
    }
    const plain = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: '{"a":1}',
    });
    expect(await plain.json()).toEqual({ body: { a: 1 } });
  });
});
