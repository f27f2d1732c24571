import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inflightJob, type JobRecord } from '../../src/studio/api/index.js';
import { startCrashRig, type CrashRig } from '../helpers/crash-rig.js';

// Issue 43's bar for waiting jobs, with real processes: twenty async videos on
// a studio allowed two running jobs. A video between two polls parks (its row
// waits with no lease), so all twenty are under way at once and their polls
// interleave; a SIGKILL once every video has its upstream job loses none and
// starts none twice.

/** How long the simulator's video job runs (its planner takes a quarter of it). */
const LATENCY_MS = 2500;
const VIDEOS = 20;

let rig: CrashRig;
const ENV = { SVC_MAX_RUNNING_JOBS: '2', SVC_VIDEO_POLL_MS: '1000' };

beforeAll(async () => {
  rig = await startCrashRig('parked-videos', LATENCY_MS);
});

afterAll(() => rig.close());

const ended = (record: JobRecord) => record.finishedAt !== null;

/** Checks until `check` answers, for at most `ms` (a loaded machine is slow; the test asserts states, not times). */
async function waitFor<T>(what: string, check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`Gave up waiting for ${what}.`);
}

describe('twenty videos with two slots', () => {
  it('all progress at once (more waiting than slots, polls interleaved), and a SIGKILL loses none and starts none twice', async () => {
    const first = await rig.startStudio(ENV);
    const ids = Array.from({ length: VIDEOS }, (_, index) => `parked-${index}`);
    for (const [index, requestId] of ids.entries()) {
      const accepted = await fetch(`${first}/api/video/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'alpha-api', prompt: `a harbour at dusk, take ${index}`, duration: 1, async: true, requestId }),
      });
      expect(accepted.status).toBe(202);
    }
    // More videos waiting on their upstream jobs than the two slots: a waiting job holds none.
    const waiting = await waitFor('more videos waiting than slots', async () => {
      const { jobs } = (await (await fetch(`${first}/api/inflight`)).json()) as { jobs: unknown[] };
      const found = jobs.map((item) => inflightJob.parse(item)).filter((item) => item.state === 'waiting');
      return found.length > 2 ? found : undefined;
    });
    // A parked job's row says where it is: its upstream job and its last phase (two slots: at most two of them left it since).
    const seen = await Promise.all(waiting.map((item) => rig.job(first, item.requestId)));
    const stillParked = seen.filter((record) => record.state === 'waiting');
    expect(stillParked.length).toBeGreaterThan(0);
    for (const record of stillParked) expect(record).toMatchObject({ phase: 'rendering', upstream: { operationId: expect.any(String) } });
    // Every video has its upstream job (recorded before its first wait), and some are still under way: kill it.
    const recorded = await waitFor(
      'every upstream job recorded',
      async () => {
        const records = await Promise.all(ids.map((requestId) => rig.job(first, requestId)));
        return records.every((record) => record.upstream) && records.some((record) => !ended(record)) ? records : undefined;
      },
      60_000,
    );
    await rig.stopStudio('SIGKILL');

    const restarted = await rig.startStudio(ENV);
    const records = await waitFor(
      'all twenty to end',
      async () => {
        const all = await Promise.all(ids.map((requestId) => rig.job(restarted, requestId)));
        return all.every(ended) ? all : undefined;
      },
      60_000,
    );
    for (const record of records) expect(record, record.requestId).toMatchObject({ state: 'succeeded', error: null, attempt: 1 });
    // Each continued the upstream job it had recorded: twenty created, one each.
    for (const [index, record] of records.entries()) expect(record.upstream?.operationId).toBe(recorded[index].upstream?.operationId);
    expect(await rig.simRequests('SVC_ALPHA_BASE_URL', 'POST /v1/videos/generations')).toHaveLength(VIDEOS);
    const history = (await (await fetch(`${restarted}/api/history?kind=video&limit=50`)).json()) as { items: { requestId: string }[] };
    expect(history.items.map((item) => item.requestId).sort()).toEqual([...ids].sort());

    // The polls interleave: at some point of the vendor's log, more than two videos had been polled and were polled again later.
    const polls = (await rig.simRequests<{ path: string }>('SVC_ALPHA_BASE_URL', 'GET /v1/videos/:id')).map((entry) => entry.path);
    const spans = new Map<string, { first: number; last: number }>();
    for (const [index, path] of polls.entries()) spans.set(path, { first: spans.get(path)?.first ?? index, last: index });
    const overlapping = polls.map((_, index) => [...spans.values()].filter((span) => span.first <= index && index < span.last).length);
    expect(Math.max(...overlapping)).toBeGreaterThan(2);
  }, 150_000);
});
