import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventChannel } from '../../src/common/events/channel.js';
import { streamRequestEvents, wantsEventStream } from '../../src/common/events/request-stream.js';
import { openRawStream, startChannelServer, waitFor, type RawStream, type TestServer } from './helpers.js';

const servers: TestServer[] = [];
const streams: RawStream[] = [];

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  for (const server of servers.splice(0)) await server.stop();
});

interface JobBody {
  requestId: string;
  outcome: 'done' | 'error' | 'hang';
}

/** A fake job route: per-request SSE with the Accept header, else 202 and events on the channel. */
function jobRoute(state: { clientClosed: string[]; release?: () => void }) {
  return (app: FastifyInstance, channel: EventChannel) => {
    app.post('/test/job', async (request, reply) => {
      const { requestId, outcome } = request.body as JobBody;
      const job = async () => {
        const step = () => new Promise((resolve) => setImmediate(resolve));
        channel.publish('generate', 'phase', { requestId, phase: 'queued' });
        await step();
        channel.publish('generate', 'phase', { requestId: 'someone-else', phase: 'queued' });
        channel.publish('generate', 'partial', { requestId, b64: 'Z'.repeat(100_000) }, { transientFields: ['b64'] });
        channel.publish('other', 'note', { text: 'no requestId' });
        await step();
        if (outcome === 'hang') await new Promise<void>((resolve) => (state.release = resolve));
        if (outcome === 'error') channel.publish('generate', 'error', { requestId, error: { code: 'UPSTREAM_FAILED', message: 'boom' } });
        else channel.publish('generate', 'done', { requestId, result: { ok: true } });
        // Anything later for this request is not part of its stream.
        channel.publish('generate', 'phase', { requestId, phase: 'after' });
        channel.publish('generate', 'done', { requestId: 'someone-else' });
      };
      if (!wantsEventStream(request)) {
        void job();
        return reply.code(202).send({ requestId });
      }
      const streaming = streamRequestEvents(reply, channel, { requestId, onClientClose: () => state.clientClosed.push(requestId) });
      void job();
      return streaming;
    });
  };
}

async function postJob(server: TestServer, body: JobBody, accept = 'text/event-stream'): Promise<RawStream> {
  const stream = await openRawStream(
    `${server.url}/test/job`,
    { accept, 'content-type': 'application/json' },
    'POST',
    JSON.stringify(body),
  );
  streams.push(stream);
  return stream;
}

describe('per-request streams', () => {
  it('carry only their requestId, with ids and the full live fields, and end after done', async () => {
    const state = { clientClosed: [] as string[] };
    const server = await startChannelServer({}, jobRoute(state));
    servers.push(server);
    const everything = await openRawStream(`${server.url}/api/events`);
    streams.push(everything);

    const stream = await postJob(server, { requestId: 'job-1', outcome: 'done' });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    await stream.ended;
    const events = stream.events();
    expect(events.map((event) => `${event.event}:${event.phase ?? ''}`)).toEqual(['phase:queued', 'partial:', 'done:']);
    expect(events.every((event) => event.requestId === 'job-1')).toBe(true);
    expect(stream.frames.map((frame) => frame.id)).toEqual(events.map((event) => event.id));
    expect(String(events[1].b64)).toHaveLength(100_000);
    expect(events[2]).toMatchObject({ result: { ok: true } });

    // The same ids are on the shared channel, between everyone else's events.
    await waitFor(() => everything.frames.length === 7, 'all channel events');
    const shared = everything.events();
    for (const event of events) expect(shared.find((other) => other.id === event.id)).toEqual(event);
    expect(state.clientClosed).toEqual([]);
    // Per-request streams do not use the listener capacity.
    expect(server.channel.listenerCount).toBe(1);
  });

  it('end after an error event too', async () => {
    const server = await startChannelServer({}, jobRoute({ clientClosed: [] }));
    servers.push(server);
    const stream = await postJob(server, { requestId: 'job-2', outcome: 'error' });
    await stream.ended;
    expect(stream.events().map((event) => event.event)).toEqual(['phase', 'partial', 'error']);
    expect(stream.events()[2]).toMatchObject({ error: { code: 'UPSTREAM_FAILED' } });
  });

  it('call onClientClose when the client leaves before the end', async () => {
    const state: { clientClosed: string[]; release?: () => void } = { clientClosed: [] };
    const server = await startChannelServer({}, jobRoute(state));
    servers.push(server);
    const stream = await postJob(server, { requestId: 'job-3', outcome: 'hang' });
    await waitFor(() => stream.frames.length === 2, 'the first events');
    stream.close();
    await waitFor(() => state.clientClosed.length === 1, 'onClientClose');
    expect(state.clientClosed).toEqual(['job-3']);
    state.release?.();
  });

  it('end at channel shutdown without calling onClientClose', async () => {
    const state: { clientClosed: string[]; release?: () => void } = { clientClosed: [] };
    const server = await startChannelServer({}, jobRoute(state));
    servers.push(server);
    const stream = await postJob(server, { requestId: 'job-5', outcome: 'hang' });
    await waitFor(() => stream.frames.length === 2, 'the first events');
    server.channel.close();
    await stream.ended;
    expect(state.clientClosed).toEqual([]);
    state.release?.();
  });

  it('are not used without Accept: text/event-stream', async () => {
    const server = await startChannelServer({}, jobRoute({ clientClosed: [] }));
    servers.push(server);
    const response = await fetch(`${server.url}/test/job`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ requestId: 'job-4', outcome: 'done' }),
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ requestId: 'job-4' });
  });
});
