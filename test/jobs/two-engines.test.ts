import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { jobRecord, type JobRecord } from '../../src/studio/api/index.js';
import { resolveModel } from '../../src/studio/catalog/models.js';
import { LANES } from '../../src/studio/catalog/registry.js';
import { startStudio, type RunningStudio } from '../../src/studio/main.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// Several processes sharing one database could run the queue: two studios
// (two engines, each with its own lease owner) over one state dir and one
// SQLite file, jobs submitted to both. Every job runs exactly once, the
// overall limit holds across both, and an ordering key runs its jobs one at a
// time in order whichever engine claims them.

const LIMIT = 3;
let sim: ResponsesSimulator;
let home: string;
const studios: RunningStudio[] = [];

beforeAll(async () => {
  sim = await startResponsesSimulator({ generationDelayMs: 300 });
  home = mkdtempSync(join(tmpdir(), 'svc-two-engines-'));
  for (let index = 0; index < 2; index += 1) {
    studios.push(
      await startStudio({
        env: {
          SVC_HOME: home,
          PATH: process.env.PATH,
          OMNI_API_KEY: sim.apiKey,
          SVC_MAX_RUNNING_JOBS: String(LIMIT),
          SVC_JOB_LEASE_MS: '900',
        },
        port: 0,
        descriptor: false,
        upstreams: { api: sim.apiBaseUrl, oauth: sim.backendBaseUrl, 'oauth.issuer': sim.issuerUrl },
      }),
    );
  }
});

afterAll(async () => {
  for (const studio of studios) await studio.close();
  await sim.close();
  rmSync(home, { recursive: true, force: true });
});

/** The api lane's model as planning resolves it. */
const plannedModel = (requested: string) => {
  const { id, upstreamId } = resolveModel(LANES.api, requested);
  return { requested, id, upstreamId };
};
const record = async (studio: RunningStudio, requestId: string): Promise<JobRecord> =>
  jobRecord.parse(await (await fetch(`${studio.url}/api/jobs/${requestId}`)).json());

describe('two engines over one database file', () => {
  it('each job runs once, and the overall limit holds across both', async () => {
    const ids = Array.from({ length: 12 }, (_, index) => `shared-${index}`);
    const submit = (requestId: string, index: number) =>
      fetch(`${studios[index % 2].url}/api/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'api', prompt: `a shared queue <${index}>`, async: true, requestId }),
      });
    // One job accepted on each studio first (each claims its own, a slot of the shared limit), then
    // the rest at once: which studio's requests are read first is otherwise up to the event loop, and
    // one that fills the limit keeps claiming as its jobs end.
    await submit(ids[0], 0);
    await submit(ids[1], 1);
    await Promise.all(ids.slice(2).map((requestId, index) => submit(requestId, index + 2)));
    const db = embeddedDatabase(studios[0].ctx);
    const active = db.prepare<[], { count: number }>(`SELECT COUNT(*) AS count FROM jobs WHERE state IN ('running', 'waiting')`);
    const owners = new Set<string>();
    let most = 0;
    while (true) {
      most = Math.max(most, active.get()?.count ?? 0);
      for (const row of db.prepare<[], { lease_owner: string | null }>(`SELECT lease_owner FROM jobs WHERE lease_owner IS NOT NULL`).all())
        owners.add(row.lease_owner as string);
      const records = await Promise.all(ids.map((requestId) => record(studios[0], requestId)));
      if (records.every((item) => item.finishedAt !== null)) {
        for (const item of records) expect(item, item.requestId).toMatchObject({ state: 'succeeded' });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(most).toBeLessThanOrEqual(LIMIT);
    expect(most).toBeGreaterThan(0);
    // Both engines claimed work.
    expect(owners).toEqual(new Set([studios[0].ctx.jobs.owner, studios[1].ctx.jobs.owner]));
    // Each prompt reached the upstream once.
    for (let index = 0; index < ids.length; index += 1) {
      const calls = sim.simulator.requests().filter((entry) => JSON.stringify(entry.body).includes(`a shared queue <${index}>`));
      expect(calls, `job ${index}`).toHaveLength(1);
    }
  }, 60_000);

  it('an ordering key runs its jobs one at a time, in the order they came, across both engines', async () => {
    const started: string[] = [];
    const ends: string[] = [];
    const outcomes = [];
    for (let index = 0; index < 4; index += 1) {
      const jobs = studios[index % 2].ctx.jobs;
      const submitted = await jobs.submit({
        requestId: `keyed-${index}`,
        kind: 'generate',
        lane: 'api',
        model: 'lang-5.6-luna',
        request: {
          operation: 'generate',
          slots: [
            {
              requestId: `keyed-${index}`,
              lane: 'api',
              model: plannedModel('lang-5.6-luna'),
              fields: { prompt: `keyed ${index}`, format: 'png', options: {} },
            },
          ],
          inputs: { references: [] },
        },
        orderingKey: 'session-1',
      });
      outcomes.push(submitted.outcome.then(() => ends.push(`keyed-${index}`)));
    }
    const db = embeddedDatabase(studios[0].ctx);
    const startedAt = db.prepare<[], { id: string; started_at: string | null; finished_at: string | null }>(
      `SELECT id, started_at, finished_at FROM jobs WHERE ordering_key = 'session-1' ORDER BY rowid`,
    );
    while (ends.length < 4) {
      const rows = startedAt.all();
      const runningNow = rows.filter((row) => row.started_at && !row.finished_at);
      expect(runningNow.length).toBeLessThanOrEqual(1);
      for (const row of rows) if (row.started_at && !started.includes(row.id)) started.push(row.id);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await Promise.all(outcomes);
    expect(started).toEqual(['keyed-0', 'keyed-1', 'keyed-2', 'keyed-3']);
    expect(ends).toEqual(['keyed-0', 'keyed-1', 'keyed-2', 'keyed-3']);
  }, 60_000);

  it('a higher priority starts first among queued jobs (the request field)', async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${studios[1].url}/api/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'api', async: true, ...body }),
      });
    // Hold every slot (each call held 4 s by the simulator, so none frees before the positions are
    // read on a loaded machine), then queue three in the order low, middle, high.
    for (let index = 0; index < LIMIT; index += 1)
      expect((await post({ prompt: `holder ${index} [sim:slow=4000]`, requestId: `holder-${index}` })).status).toBe(202);
    for (const [requestId, priority] of [
      ['low', -1],
      ['middle', 0],
      ['high', 5],
    ] as const)
      expect((await post({ prompt: `priority ${requestId}`, requestId, priority })).status).toBe(202);
    expect((await post({ prompt: 'too high', requestId: 'too-high', priority: 11 })).status).toBe(400);
    const positions = Object.fromEntries(
      await Promise.all(
        ['low', 'middle', 'high'].map(async (requestId) => [requestId, (await record(studios[0], requestId)).position] as const),
      ),
    );
    expect(positions).toEqual({ high: 1, middle: 2, low: 3 });
    const ended = await (async () => {
      while (true) {
        const records = await Promise.all(['low', 'middle', 'high'].map((requestId) => record(studios[0], requestId)));
        if (records.every((item) => item.finishedAt !== null)) return records;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    // Claimed in one pass they share a millisecond; none starts before one ranked above it.
    const [low, middle, high] = ended.map((item) => Date.parse(item.startedAt as string));
    expect(high).toBeLessThanOrEqual(middle);
    expect(middle).toBeLessThanOrEqual(low);
  }, 60_000);
});
