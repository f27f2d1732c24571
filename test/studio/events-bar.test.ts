import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { startRig, type Rig } from '../generate/rig.js';

// Issue 3's bar, on the real studio with the channel's default settings
// (1000-event replay, 256 listeners, 15 s heartbeat) and a real generation.

interface Frame {
  id?: string;
  data: Record<string, unknown>;
}

/** A raw GET /api/events connection that collects frames and comments. */
function listen(url: string, headers: Record<string, string> = {}) {
  const frames: Frame[] = [];
  const comments: string[] = [];
  let status = 0;
  let body = '';
  let response: IncomingMessage | undefined;
  let buffer = '';
  const ready = new Promise<void>((resolve, reject) => {
    const request: ClientRequest = httpRequest(`${url}/api/events`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      response = res;
      status = res.statusCode ?? 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (status !== 200) {
          body += chunk;
          return;
        }
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const frame: Partial<Frame> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else if (line.startsWith('id: ')) frame.id = line.slice(4);
            else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6));
          }
          if (frame.data) frames.push(frame as Frame);
        }
      });
      res.on('end', () => resolve());
      resolve();
    });
    request.on('error', reject);
    request.end();
  });
  return {
    frames,
    comments,
    ready,
    status: () => status,
    body: () => body,
    close: () => response?.destroy(),
  };
}

async function until(condition: () => boolean, boundMs: number): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met within its bound');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the studio event channel (issue 3 bar)', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig();
  });
  afterAll(async () => {
    await rig.stop();
  });

  it('shows an async generation in order, resumes a broken connection without loss or duplicates', async () => {
    const first = listen(rig.studio.url);
    await first.ready;
    const accepted = await rig.post('/api/generate', {
      prompt: 'a fox [sim:slow=300]',
      provider: 'api',
      async: true,
      requestId: 'bar-async-1',
    });
    expect(accepted.status).toBe(202);
    // Break the connection after the first event of the job, then resume from its id.
    await until(() => first.frames.some((frame) => frame.data.requestId === 'bar-async-1'), 10_000);
    first.close();
    const cursor = first.frames[first.frames.length - 1].id as string;
    const seenBefore = first.frames.filter((frame) => frame.data.requestId === 'bar-async-1');

    const resumed = listen(rig.studio.url, { 'last-event-id': cursor });
    await resumed.ready;
    await until(() => resumed.frames.some((frame) => frame.data.requestId === 'bar-async-1' && frame.data.event === 'done'), 15_000);
    resumed.close();

    const all = [...seenBefore, ...resumed.frames.filter((frame) => frame.data.requestId === 'bar-async-1')];
    const ids = all.map((frame) => frame.id);
    expect(new Set(ids).size).toBe(ids.length);
    const events = all.map((frame) => frame.data.event);
    expect(events[0]).toBe('phase');
    expect(events).toContain('partial');
    expect(events[events.length - 1]).toBe('done');
    // Ids increase: the resumed stream continued exactly where the first stopped.
    const seqs = ids.map((id) => Number(String(id).split('-').pop()));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(resumed.frames.some((frame) => frame.data.event === 'replay_gap')).toBe(false);
  });

  it('answers a cursor it cannot honour with replay_gap, by header and by query', async () => {
    const byHeader = listen(rig.studio.url, { 'last-event-id': 'deadbeef00-42' });
    await byHeader.ready;
    await until(() => byHeader.frames.length > 0, 5_000);
    expect(byHeader.frames[0].data).toMatchObject({ topic: 'system', event: 'replay_gap' });
    byHeader.close();
    const response = await fetch(`${rig.studio.url}/api/events?lastEventId=garbage`, { headers: { accept: 'text/event-stream' } });
    const reader = readSse(response.body as ReadableStream<Uint8Array>);
    const { value } = await reader.next();
    expect(JSON.parse(value?.data as string)).toMatchObject({ topic: 'system', event: 'replay_gap' });
    await reader.return(undefined);
  });

  it('refuses the 257th listener with 503 {"error":"SSE_CAPACITY"} and frees a slot on close', async () => {
    const listeners = Array.from({ length: 256 }, () => listen(rig.studio.url));
    await Promise.all(listeners.map((listener) => listener.ready));
    await until(() => rig.studio.ctx.channel.listenerCount === 256, 10_000);
    const extra = listen(rig.studio.url);
    await extra.ready;
    await until(() => extra.body().length > 0, 5_000);
    expect(extra.status()).toBe(503);
    expect(JSON.parse(extra.body())).toEqual({ error: 'SSE_CAPACITY' });
    listeners[0].close();
    await until(() => rig.studio.ctx.channel.listenerCount === 255, 5_000);
    const again = listen(rig.studio.url);
    await again.ready;
    expect(again.status()).toBe(200);
    again.close();
    for (const listener of listeners) listener.close();
    await until(() => rig.studio.ctx.channel.listenerCount === 0, 5_000);
  });

  it('sends a ping within 16 s at the default heartbeat', async () => {
    const listener = listen(rig.studio.url);
    await listener.ready;
    await until(() => listener.comments.includes('ping'), 16_000);
    listener.close();
  }, 20_000);

  it('ends a per-request stream with done', async () => {
    const response = await rig.post('/api/generate', { prompt: 'a kite', provider: 'api' }, { accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events: string[] = [];
    for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) events.push(JSON.parse(message.data).event);
    expect(events[events.length - 1]).toBe('done');
  });
});
