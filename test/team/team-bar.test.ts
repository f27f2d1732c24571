import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentTurn, type JobRecord } from '../../src/studio/api/index.js';
import { createSession, enqueue, queue } from '../agent/helpers.js';
import { waitFor } from '../agent/helpers.js';
import { startTeamRig, type TeamRig, type TeamStudio } from '../helpers/team-rig.js';

// Issue 44's bar, with real processes: PostgreSQL and s3rver started by the test, the simulators in
// their own process (gamma predictions take LATENCY_MS), three studios on the one database and
// bucket. Jobs go to the three in turn; one studio is killed with SIGKILL while they run.

const LATENCY_MS = 3000;
const JOBS = 60;

let rig: TeamRig;
let studios: TeamStudio[];

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const ended = (record: JobRecord) => ['succeeded', 'failed', 'cancelled', 'interrupted'].includes(record.state);
const SUBMIT = 'POST /api/v1/model/generateImage';

interface StreamEvent {
  readonly id: string;
  readonly event: string;
  readonly data: Record<string, unknown>;
}

/** Reads a studio's /api/events (from `lastEventId` when given) until `enough` says so; the events read. */
async function readEvents(url: string, enough: (events: StreamEvent[]) => boolean, lastEventId?: string): Promise<StreamEvent[]> {
  const controller = new AbortController();
  const events: StreamEvent[] = [];
  const response = await fetch(`${url}/api/events`, {
    headers: lastEventId ? { 'last-event-id': lastEventId } : {},
    signal: controller.signal,
  });
  expect(response.status).toBe(200);
  let done = false;
  const parser = createParser({
    onEvent(message) {
      if (done || message.id === undefined) return;
      const data = JSON.parse(message.data) as Record<string, unknown>;
      events.push({ id: message.id, event: String(data.event), data });
      if (enough(events)) done = true;
    },
  });
  const decoder = new TextDecoder();
  const reader = response.body!.getReader();
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    while (!done) {
      const { value, done: closed } = await reader.read();
      if (closed) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return events;
}

beforeAll(async () => {
  rig = await startTeamRig('bar', LATENCY_MS);
  // One at a time: the first makes the schema, the others find it.
  studios = [await rig.startStudio(), await rig.startStudio(), await rig.startStudio()];
}, 120_000);

afterAll(() => rig?.close());

describe('three studios on one PostgreSQL and one bucket', () => {
  it('each names itself, and says what its state is kept in', async () => {
    const names = new Set(studios.map((studio) => studio.instance));
    expect(names.size).toBe(3);
    for (const studio of studios) {
      const health = (await (await fetch(`${studio.url}/api/health`)).json()) as Record<string, unknown>;
      expect(health).toMatchObject({ ok: true, instance: studio.instance, storage: { database: 'postgresql', assets: 's3' } });
    }
  });

  it(`${JOBS} async gamma jobs sent round-robin, one studio SIGKILLed while they run: every job succeeds, each submitted once, every image readable through each survivor`, async () => {
    const ids = Array.from({ length: JOBS }, (_, index) => `team-${index}`);
    for (const [index, requestId] of ids.entries()) {
      const answer = await post(`${studios[index % 3].url}/api/generate`, {
        provider: 'gamma',
        prompt: `a team harbour ${index}`,
        async: true,
        requestId,
      });
      expect(answer.status, requestId).toBe(202);
    }
    const [victim, ...survivors] = studios;
    // While they run: every prediction under way at the vendor (none between its checkpoint and its
    // recorded prediction, where a crash ends a job interrupted by the billing rule, never sent twice).
    const atKill = await waitFor(
      'every job at the vendor, and still running',
      async () => {
        const records = await Promise.all(ids.map((requestId) => rig.job(survivors[0].url, requestId)));
        return records.every((record) => record.upstream) && !records.every(ended) ? records : undefined;
      },
      60_000,
    );
    const unfinished = atKill.filter((record) => !ended(record)).map((record) => record.requestId);
    const heldByVictim = atKill.filter((record) => record.instance === victim.instance && !ended(record)).map((record) => record.requestId);
    await victim.process.stop('SIGKILL');

    const records = await waitFor(
      'every job to end',
      async () => {
        const all = await Promise.all(ids.map((requestId, index) => rig.job(survivors[index % 2].url, requestId)));
        return all.every(ended) ? all : undefined;
      },
      120_000,
    );
    for (const record of records) expect(record, record.requestId).toMatchObject({ state: 'succeeded', error: null, attempt: 1 });
    // The kill came while jobs ran; what the victim held then (if a poll was under way) was finished by a survivor.
    expect(unfinished.length).toBeGreaterThan(0);
    for (const requestId of heldByVictim) expect(records.find((record) => record.requestId === requestId)?.state).toBe('succeeded');
    // It is gone: none of its leases remain.
    const team = (await (await fetch(`${survivors[0].url}/api/team`)).json()) as { instances: Array<{ instance: string }> };
    expect(team.instances.map((holder) => holder.instance)).not.toContain(victim.instance);
    // Each submitted upstream exactly once, whichever studio ran it, crash or not.
    const submits = (await rig.simRequests<{ body: unknown }>('SVC_GAMMA_BASE_URL', SUBMIT)).map((entry) => JSON.stringify(entry.body));
    for (let index = 0; index < JOBS; index += 1)
      expect(submits.filter((body) => body.includes(`a team harbour ${index}"`)).length, `submits of job ${index}`).toBe(1);
    // No image lost: sixty in history, each readable through both survivors.
    for (const survivor of survivors) {
      const history = (await (await fetch(`${survivor.url}/api/history?provider=gamma&limit=200`)).json()) as {
        items: Array<{ requestId: string; url: string; filename: string }>;
      };
      const items = history.items.filter((item) => item.requestId.startsWith('team-'));
      expect(items.map((item) => item.requestId).sort()).toEqual([...ids].sort());
      for (const item of items) {
        for (const reader of survivors) {
          const image = await fetch(new URL(item.url, reader.url));
          expect(image.status, `${item.filename} through ${reader.instance}`).toBe(200);
          expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(0);
        }
      }
    }
  }, 300_000);

  it('an event stream read on one studio and resumed with Last-Event-ID on another misses nothing', async () => {
    const [, first, second] = studios;
    const ids = Array.from({ length: 4 }, (_, index) => `stream-${index}`);
    const terminal = (events: StreamEvent[]) =>
      ids.every((requestId) => events.some((event) => event.data.requestId === requestId && event.event === 'done'));
    // A reader that never disconnects, on the first studio: what a resumed reader must see too.
    const whole = readEvents(first.url, terminal);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const [index, requestId] of ids.entries())
      expect(
        (await post(`${second.url}/api/generate`, { provider: 'gamma', prompt: `a streamed harbour ${index}`, async: true, requestId }))
          .status,
      ).toBe(202);
    const head = await readEvents(first.url, (events) => events.some((event) => ids.includes(String(event.data.requestId))));
    const resumed = await readEvents(second.url, terminal, head.at(-1)?.id);
    const all = await whole;
    const start = all.findIndex((event) => event.id === head.at(-1)?.id);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(resumed.some((event) => event.event === 'replay_gap')).toBe(false);
    // The same events, the same ids, in the same order, after the cursor.
    const wanted = all.slice(start + 1).map((event) => event.id);
    expect(wanted.length).toBeGreaterThan(ids.length);
    expect(resumed.map((event) => event.id).slice(0, wanted.length)).toEqual(wanted);
    // Each event names the studio that published it, on every studio's stream: the one a job was posted to says it queued it.
    const names = new Set(studios.map((studio) => studio.instance));
    for (const requestId of ids) {
      const own = all.filter((event) => event.data.requestId === requestId);
      for (const event of own) expect(names.has(String(event.data.instance)), `${requestId} ${event.event}`).toBe(true);
      const queued = own.filter((event) => event.event === 'phase' && event.data.phase === 'queued');
      expect(
        queued.map((event) => event.data.instance),
        requestId,
      ).toEqual([second.instance]);
    }
  }, 120_000);

  it('a job running on one studio is cancelled through another, and retried through a third', async () => {
    const [, first, second] = studios;
    // The vendor never finishes it: it waits on its prediction until cancelled.
    expect(
      (
        await post(`${first.url}/api/generate`, {
          provider: 'gamma',
          prompt: 'a cancelled harbour [sim:never]',
          async: true,
          requestId: 'team-cancel',
        })
      ).status,
    ).toBe(202);
    await waitFor('its prediction to be under way', async () => ((await rig.job(second.url, 'team-cancel')).upstream ? true : undefined));
    expect((await fetch(`${second.url}/api/inflight/team-cancel`, { method: 'DELETE' })).status).toBe(200);
    const cancelled = await waitFor('the cancel to land', async () => {
      const record = await rig.job(first.url, 'team-cancel');
      return ended(record) ? record : undefined;
    });
    expect(cancelled).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
    const retried = await post(`${first.url}/api/jobs/team-cancel/retry`, {});
    expect(retried.status).toBe(202);
    expect(await retried.json()).toMatchObject({ requestId: 'team-cancel~2', attempt: 2, retryOf: 'team-cancel' });
    await waitFor('the retry to be under way', async () => ((await rig.job(second.url, 'team-cancel~2')).upstream ? true : undefined));
    expect((await fetch(`${second.url}/api/inflight/team-cancel~2`, { method: 'DELETE' })).status).toBe(200);
  }, 90_000);

  it('five agent turns of one session, queued through two studios, run in order', async () => {
    const [, first, second] = studios;
    const session = await createSession(first.url, { title: 'Team', settings: { provider: 'gamma' } });
    const items: AgentTurn[] = [];
    for (let index = 0; index < 5; index += 1)
      items.push(await enqueue((index % 2 === 0 ? first : second).url, session.id, `a team lighthouse, take ${index + 1}`));
    const done = await waitFor(
      'every turn to end',
      async () => {
        const current = await queue(second.url, session.id);
        return current.items.every((item) => !['queued', 'running'].includes(item.state)) ? current : undefined;
      },
      90_000,
    );
    expect(done.items.map((item) => item.itemId)).toEqual(items.map((item) => item.itemId));
    expect(done.items.map((item) => item.state)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded']);
    for (let index = 1; index < done.items.length; index += 1)
      expect(Date.parse(done.items[index].startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(done.items[index - 1].finishedAt ?? ''));
  }, 120_000);
});
