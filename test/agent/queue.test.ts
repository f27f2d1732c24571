import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { agentEventPayloads, agentTurn } from '../../src/studio/api/index.js';
import { solidPng } from '../generate/rig.js';
import { startDemoStudio, startTestStudio, type DemoStudio, type TestStudio } from '../helpers/studio.js';
import { call, createSession, enqueue, queue, refused, waitFor } from './helpers.js';

// The durable queue of Agent Mode on a demo studio: items run one at a time
// per session and in order, sessions side by side; cancel of a queued and of
// a running item (the upstream call aborted), retry of a failed and of a
// cancelled one, the wrong state answered 409, and the `agent` events.

let studio: DemoStudio;
let url: string;
const events: Array<{ topic: string; event: string } & Record<string, unknown>> = [];
const stopEvents = new AbortController();

beforeAll(async () => {
  studio = await startDemoStudio('svc-agent-queue-');
  url = studio.url;
  const response = await fetch(`${url}/api/events`, { headers: { accept: 'text/event-stream' }, signal: stopEvents.signal });
  void (async () => {
    try {
      for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) events.push(JSON.parse(message.data));
    } catch {
      // Ended with the test.
    }
  })();
});
afterAll(async () => {
  stopEvents.abort();
  await studio.stop();
});

const item = async (itemId: string) => {
  const answer = await call(url, 'GET', `/api/jobs/${itemId}`);
  return answer;
};

const ended = (sessionId: string, count: number) =>
  waitFor(`${count} items of the session to end`, async () => {
    const current = await queue(url, sessionId);
    return current.items.filter((entry) => !['queued', 'running'].includes(entry.state)).length >= count ? current : undefined;
  });

describe('order and parallelism', () => {
  it('the items of one session run one at a time, in order; two sessions run side by side', async () => {
    const first = await createSession(url, { title: 'one' });
    const second = await createSession(url, { title: 'two' });
    const a = await enqueue(url, first.id, '/new a quiet lake');
    expect(a).toMatchObject({ state: expect.stringMatching(/queued|running/), attempt: 1 });
    const b = await enqueue(url, first.id, '/new a stormy lake');
    const c = await enqueue(url, second.id, '/new a desert at noon');
    const listed = await queue(url, first.id);
    expect(listed.items.map((entry) => entry.itemId)).toEqual([a.itemId, b.itemId]);
    expect(listed.items[1]).toMatchObject({ state: 'queued', position: 1 });

    const one = await ended(first.id, 2);
    const two = await ended(second.id, 1);
    for (const entry of [...one.items, ...two.items]) expect(entry.state).toBe('succeeded');
    const [ra, rb] = one.items;
    // b started only once a had ended; c (another session) ran while a did.
    expect(Date.parse(rb.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(ra.finishedAt ?? ''));
    const rc = two.items[0];
    expect(Date.parse(rc.startedAt ?? '')).toBeLessThan(Date.parse(ra.finishedAt ?? ''));
    expect(c.itemId).toBe(rc.itemId);
    // The queue item is an engine job of kind agent-turn.
    expect((await item(a.itemId)).body).toMatchObject({ kind: 'agent-turn', state: 'succeeded' });
  });
});

describe('cancel and retry', () => {
  it('cancel of a queued item: it never runs; retry runs it; the wrong state answers 409 with a code', async () => {
    const created = await createSession(url);
    const running = await enqueue(url, created.id, '/new a slow kite [sim:slow=1500]');
    const waiting = await enqueue(url, created.id, '/new a second kite');
    const cancelled = await call(url, 'POST', `/api/agent/queue/${waiting.itemId}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(agentTurn.parse(cancelled.body)).toMatchObject({ itemId: waiting.itemId, state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
    await refused(call(url, 'POST', `/api/agent/queue/${waiting.itemId}/cancel`), 409, 'AGENT_CANCEL_NOT_ALLOWED');

    const done = await ended(created.id, 2);
    expect(done.items.map((entry) => entry.state)).toEqual(['succeeded', 'cancelled']);
    expect(done.items[1].images).toEqual([]);
    await refused(call(url, 'POST', `/api/agent/queue/${running.itemId}/retry`), 409, 'AGENT_RETRY_NOT_ALLOWED');

    const retried = await call(url, 'POST', `/api/agent/queue/${waiting.itemId}/retry`);
    expect(retried.status).toBe(202);
    expect(agentTurn.parse(retried.body)).toMatchObject({ itemId: waiting.itemId, attempt: 2, requestId: `${waiting.itemId}~2` });
    const again = await ended(created.id, 2);
    expect(again.items[1]).toMatchObject({ state: 'succeeded', attempt: 2, error: null });
    expect(again.items[1].images).toHaveLength(1);
    await refused(call(url, 'POST', '/api/agent/queue/no-such-item/cancel'), 404, 'AGENT_ITEM_NOT_FOUND');
    await refused(call(url, 'POST', '/api/agent/queue/no-such-item/retry'), 404, 'AGENT_ITEM_NOT_FOUND');
  });

  it('retry of a failed item runs it again and it succeeds', async () => {
    const created = await createSession(url);
    const responses = studio.demo.suite.simulators.responses.simulator;
    responses.fault('POST /backend-api/codex/responses', { status: 500, times: 1 });
    const failing = await enqueue(url, created.id, '/new a lantern that fails once');
    const failed = await ended(created.id, 1);
    expect(failed.items[0]).toMatchObject({ state: 'failed', error: { code: 'UPSTREAM_FAILED' } });
    expect((await call(url, 'POST', `/api/agent/queue/${failing.itemId}/retry`)).status).toBe(202);
    const done = await waitFor('the retried item', async () => {
      const current = await queue(url, created.id);
      return current.items[0].state === 'succeeded' ? current.items[0] : undefined;
    });
    expect(done).toMatchObject({ attempt: 2, error: null, provider: 'oauth' });
    expect(done.images).toHaveLength(1);
    // Issue 46: the retried attempt is published queued, then running, then succeeded.
    const states = await waitFor('the attempt’s succeeded event', async () => {
      const seen = events
        .filter((event) => event.topic === 'agent' && event.event === 'item' && event.itemId === failing.itemId && event.attempt === 2)
        .map((event) => event.state);
      return seen.includes('succeeded') ? seen : undefined;
    });
    expect(states).toEqual(['queued', 'running', 'succeeded']);
  });

  it('cancel of a running item aborts its upstream call', async () => {
    const created = await createSession(url);
    const responses = studio.demo.suite.simulators.responses.simulator;
    const slow = await enqueue(url, created.id, '/new a very slow comet [sim:slow=4000]');
    await waitFor(
      'the item to run and reach the upstream',
      async () => (await queue(url, created.id)).items[0].state === 'running' && responses.openStreams() > 0,
    );
    const answer = await call(url, 'POST', `/api/agent/queue/${slow.itemId}/cancel`);
    expect(answer.status).toBe(200);
    expect(agentTurn.parse(answer.body)).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
    await waitFor('the upstream call to be aborted', async () =>
      responses
        .requests()
        .some((entry) => JSON.stringify(entry.body ?? '').includes('very slow comet') && entry.outcome === 'client-aborted'),
    );
  });
});

describe('deleting a session', () => {
  it('cancels its running and queued items first; their jobs end cancelled and nothing more runs', async () => {
    const created = await createSession(url);
    const slow = await enqueue(url, created.id, '/new a slow owl [sim:slow=3000]');
    const next = await enqueue(url, created.id, '/new a second owl');
    await waitFor('the first item to run', async () => (await queue(url, created.id)).items[0].state === 'running');
    expect((await call(url, 'DELETE', `/api/agent/sessions/${created.id}`)).body).toEqual({ id: created.id, deleted: true });
    for (const entry of [slow, next]) {
      const record = await waitFor('the job to end', async () => {
        const answer = (await item(entry.itemId)).body as { state: string; finishedAt: string | null };
        return answer.finishedAt ? answer : undefined;
      });
      expect(record.state).toBe('cancelled');
    }
    await refused(call(url, 'GET', `/api/agent/sessions/${created.id}/queue`), 404, 'AGENT_SESSION_NOT_FOUND');
  });
});

describe('events', () => {
  it('each item says queued, running and how it ended on topic agent, with its progress', async () => {
    const created = await createSession(url);
    const queued = await enqueue(url, created.id, 'a paper crane');
    await ended(created.id, 1);
    const mine = await waitFor('the terminal item event', async () => {
      const found = events.filter((event) => event.topic === 'agent' && event.itemId === queued.itemId);
      return found.some((event) => event.event === 'item' && event.state === 'succeeded') ? found : undefined;
    });
    for (const event of mine) {
      const {
        id: _id,
        topic: _topic,
        event: name,
        ...payload
      } = event as Record<string, unknown> & { event: keyof typeof agentEventPayloads };
      expect(agentEventPayloads[name].safeParse(payload).success, JSON.stringify(event)).toBe(true);
    }
    expect(mine.filter((event) => event.event === 'item').map((event) => event.state)).toEqual(['queued', 'running', 'succeeded']);
    expect(mine.filter((event) => event.event === 'progress').map((event) => event.step)).toEqual([
      'planning',
      'planned',
      'generating',
      'saved',
    ]);
    expect(mine.find((event) => event.step === 'planned')).toMatchObject({ action: 'generate', decidedBy: 'planner' });
    expect(
      events.some(
        (event) => event.topic === 'agent' && event.event === 'current_image' && event.sessionId === created.id && event.reason === 'turn',
      ),
    ).toBe(true);
    // The engine's own events carry the item too (its requestId is the item's job).
    expect(events.some((event) => event.topic === 'generation' && event.requestId === queued.itemId && event.event === 'done')).toBe(true);
  });
});

describe('delivery of a turn', () => {
  it('async with a requestId answers 202 and runs; the same request again is the same item; the id of another job or body is 409', async () => {
    const created = await createSession(url);
    const body = { prompt: '/new a lone pine', async: true, requestId: 'agent-async-1' };
    const accepted = await call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, body);
    expect(accepted).toMatchObject({ status: 202, body: { requestId: 'agent-async-1', status: 'accepted' } });
    await ended(created.id, 1);
    const again = await call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, body);
    expect(again.status).toBe(202);
    const listed = await queue(url, created.id);
    expect(listed.items.map((entry) => [entry.itemId, entry.state])).toEqual([['agent-async-1', 'succeeded']]);
    await refused(
      call(url, 'POST', `/api/agent/sessions/${created.id}/turns`, { ...body, prompt: '/new a different tree' }),
      409,
      'REQUEST_ID_IN_USE',
    );
    // A generation's requestId is not an item's.
    expect((await call(url, 'POST', '/api/generate', { prompt: 'a plain job', requestId: 'plain-job-1' })).status).toBe(200);
    await refused(
      call(url, 'POST', `/api/agent/sessions/${created.id}/queue`, { prompt: 'a plain job', requestId: 'plain-job-1' }),
      409,
      'REQUEST_ID_IN_USE',
    );
    expect((await queue(url, created.id)).items).toHaveLength(1);
  });

  it('per-request SSE: the job events of the turn, ending with done and the turn as its result', async () => {
    const created = await createSession(url);
    const response = await fetch(`${url}/api/agent/sessions/${created.id}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ prompt: 'a windmill in fog' }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const seen: Array<Record<string, unknown>> = [];
    for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) seen.push(JSON.parse(message.data));
    expect(seen[0]).toMatchObject({ event: 'phase', phase: 'queued', kind: 'agent-turn' });
    expect(seen.map((event) => event.event)).toContain('phase');
    const done = seen.at(-1) as { event: string; result: unknown };
    expect(done.event).toBe('done');
    expect(agentTurn.parse(done.result)).toMatchObject({ state: 'succeeded', sessionId: created.id });
  });
});

describe('an item whose job the engine refuses', () => {
  let full: TestStudio;
  beforeAll(async () => {
    // More free space wanted than any disk has: every job is refused, 507 STORAGE_FULL, before anything is stored.
    full = await startTestStudio({ env: { SVC_STORAGE_RESERVE_BYTES: String(2 ** 52) } });
  });
  afterAll(() => full.stop());

  it('is refused with the engine code and leaves no item behind (queue, sync turn, async turn)', async () => {
    const created = await createSession(full.url);
    await refused(call(full.url, 'POST', `/api/agent/sessions/${created.id}/queue`, { prompt: '/new a fox' }), 507, 'STORAGE_FULL');
    await refused(call(full.url, 'POST', `/api/agent/sessions/${created.id}/turns`, { prompt: '/new a fox' }), 507, 'STORAGE_FULL');
    await refused(
      call(full.url, 'POST', `/api/agent/sessions/${created.id}/turns`, {
        prompt: '/new a fox',
        async: true,
        requestId: 'refused-async-1',
      }),
      507,
      'STORAGE_FULL',
    );
    const listed = await queue(full.url, created.id);
    expect(listed.items).toEqual([]);
    expect(listed.summary).toMatchObject({ queued: 0, failed: 0 });
    await refused(call(full.url, 'POST', '/api/agent/queue/refused-async-1/retry'), 404, 'AGENT_ITEM_NOT_FOUND');
  });
});

describe('an item read while it is being queued', () => {
  it('is never taken for lost: no read sees it failed before its job exists', async () => {
    const created = await createSession(url);
    const references = await Promise.all([0, 1, 2].map((index) => solidPng(640 + index, 640)));
    const seen = new Set<string>();
    let posting = true;
    const reads = (async () => {
      while (posting) for (const entry of (await queue(url, created.id)).items) seen.add(`${entry.state}:${entry.error?.code ?? ''}`);
    })();
    const queued = await Promise.all(
      [0, 1, 2].map((index) => enqueue(url, created.id, `/new a kite ${index}`, { references: [references[index]] })),
    );
    posting = false;
    await reads;
    const done = await ended(created.id, 3);
    expect([...seen].filter((state) => state.startsWith('failed'))).toEqual([]);
    // Queued side by side: in whatever order they arrived, each once, each succeeded.
    expect(done.items.map((entry) => [entry.itemId, entry.state]).sort()).toEqual(
      queued.map((entry) => [entry.itemId, 'succeeded']).sort(),
    );
  });
});

describe('settings a lane refuses (issue 46)', () => {
  it('are refused when the session is saved, not on every turn after', async () => {
    const error = await refused(
      call(url, 'POST', '/api/agent/sessions', { settings: { provider: 'beta-api', quality: 'high' } }),
      400,
      'LANE_UNSUPPORTED',
    );
    expect(error.details).toMatchObject({ lane: 'beta-api', field: 'settings.quality' });
    const created = await createSession(url, { settings: { provider: 'beta-api' } });
    await refused(
      call(url, 'PATCH', `/api/agent/sessions/${created.id}`, { settings: { provider: 'beta-api', format: 'webp' } }),
      400,
      'LANE_UNSUPPORTED',
    );
    // A control the lane lacks where the spec is silent is still taken (dropped with a warning when it runs).
    expect(
      (await call(url, 'PATCH', `/api/agent/sessions/${created.id}`, { settings: { provider: 'delta', quality: 'high' } })).status,
    ).toBe(200);
  });
});
