import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readSseFrames, SseEventTooLarge } from '../../src/common/events/sse-reader.js';
import { MANAGER_LIMITS } from '../../src/manager/limits.js';
import { followWorkerEvents } from '../../src/manager/worker-events.js';

// Issue 45 item 6: 300 data lines of 1 MiB with a ping comment between them
// and no blank line pinned hundreds of MB in the manager for as long as the
// connection stayed. An event is capped whole, not only its lines, and a
// comment inside an unfinished event does not count as a sign of life.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

async function* parts(texts: string[]): AsyncGenerator<Buffer> {
  for (const text of texts) yield Buffer.from(text);
}

describe('the SSE reader', () => {
  it('tells a comment inside an unfinished event from one between events', async () => {
    const comments: [string, boolean][] = [];
    const frames: string[] = [];
    for await (const frame of readSseFrames(parts([': before\n', 'data: a\n', ': inside\n', 'data: b\n\n', ': after\n']), {
      onComment: (text, inEvent) => void comments.push([text, inEvent]),
    }))
      frames.push(frame.data.toString());
    expect(frames).toEqual(['a\nb']);
    expect(comments).toEqual([
      ['before', false],
      ['inside', true],
      ['after', false],
    ]);
  });
});

describe('the manager following a worker', () => {
  it('drops a connection whose one event grows past workerReadMaxBytes, lines under the cap and pings between them', async () => {
    let written = 0;
    let closed = false;
    const line = `data: ${'x'.repeat(1024 * 1024)}\n: ping\n`;
    const server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      request.socket.on('close', () => (closed = true));
      const push = () => {
        // At most 300 lines (the probe's), each written when the last one drained.
        while (!closed && written < 300 * line.length) {
          written += line.length;
          if (!response.write(line)) return void response.once('drain', push);
        }
      };
      push();
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const controller = new AbortController();
    const errors: unknown[] = [];
    const following = followWorkerEvents({
      origin,
      signal: controller.signal,
      onEvent: () => undefined,
      onStatus: () => undefined,
      onError: (error) => {
        errors.push(error);
        controller.abort();
      },
    });
    await following;
    expect(errors[0]).toBeInstanceOf(SseEventTooLarge);
    // Refused at the cap, not after the 300 MiB the worker would send.
    expect(written).toBeLessThan(300 * line.length);
    expect(MANAGER_LIMITS.workerReadMaxBytes).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);
});
