import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inflightJob, jobRecord, type InflightJob, type JobRecord } from '../../src/studio/api/index.js';
import { makeTempHome } from '../helpers/studio.js';
import { runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';
import { waitFor } from '../lanes/gamma-delta-epsilon-rig.js';

// The job engine's bar, with real processes: the simulators in their own
// process (`svc sim serve`, slow), the studio in another with
// SVC_MAX_RUNNING_JOBS=2, killed with SIGKILL mid-work and restarted.

/** Each upstream call (a gamma prediction, an api stream) takes this long. */
const LATENCY_MS = 1500;

let simulators: RunningSvc;
let simEnv: Record<string, string>;
let gammaOrigin: string;
const homes: string[] = [];
const running: RunningSvc[] = [];

async function startStudioProcess(home: string, env: Record<string, string> = {}): Promise<string> {
  const studio = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: home, ...simEnv, SVC_MAX_RUNNING_JOBS: '2', ...env });
  running.push(studio);
  return String(studio.first.url);
}

const newHome = () => {
  const home = makeTempHome('svc-engine-');
  homes.push(home);
  return home;
};

const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const job = async (url: string, requestId: string): Promise<JobRecord> =>
  jobRecord.parse(await (await fetch(`${url}/api/jobs/${requestId}`)).json());
const inflight = async (url: string): Promise<InflightJob[]> =>
  ((await (await fetch(`${url}/api/inflight`)).json()) as { jobs: unknown[] }).jobs.map((item) => inflightJob.parse(item));
const ended = (record: JobRecord) => ['succeeded', 'failed', 'cancelled', 'interrupted'].includes(record.state);

/** The gamma simulator's log (it runs in the other process: read over HTTP). */
async function gammaRequests(route: string): Promise<{ id: number; at: string; body: unknown }[]> {
  const response = await fetch(`${gammaOrigin}/__sim/requests?full=1&route=${encodeURIComponent(route)}`);
  return ((await response.json()) as { requests: { id: number; at: string; body: unknown }[] }).requests;
}
const SUBMIT = 'POST /api/v1/model/generateImage';
const POLL = 'GET /api/v1/model/prediction/:id';
const submitsOf = async (prompt: string) =>
  (await gammaRequests(SUBMIT)).filter((entry) => JSON.stringify(entry.body).includes(prompt)).length;

beforeAll(async () => {
  simulators = await startSvc(['sim', 'serve', '--latency', String(LATENCY_MS)]);
  simEnv = (simulators.first as { env: Record<string, string> }).env;
  gammaOrigin = new URL(simEnv.SVC_GAMMA_BASE_URL).origin;
});

afterAll(async () => {
  for (const child of running) await child.stop('SIGKILL');
  await simulators.stop();
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

describe('the queue', () => {
  it('eight async jobs with SVC_MAX_RUNNING_JOBS=2: never more than two running, the rest queued with positions, all eight succeed', async () => {
    const url = await startStudioProcess(newHome());
    const ids = Array.from({ length: 8 }, (_, index) => `queue-${index}`);
    for (const [index, requestId] of ids.entries()) {
      expect(
        (await post(`${url}/api/generate`, { provider: 'api', prompt: `a queued lighthouse ${index}`, async: true, requestId })).status,
      ).toBe(202);
    }
    let mostActive = 0;
    let sawQueue = false;
    while (true) {
      const jobs = await inflight(url);
      if (jobs.length === 0) break;
      const active = jobs.filter((item) => item.state !== 'queued');
      const queued = jobs.filter((item) => item.state === 'queued');
      mostActive = Math.max(mostActive, active.length);
      expect(active.length).toBeLessThanOrEqual(2);
      // Positions are 1..n in the order they came.
      expect(queued.map((item) => item.position)).toEqual(queued.map((_, index) => index + 1));
      expect(queued.map((item) => item.requestId)).toEqual(
        [...queued].sort((a, b) => ids.indexOf(a.requestId) - ids.indexOf(b.requestId)).map((item) => item.requestId),
      );
      if (queued.length > 0 && !sawQueue) {
        sawQueue = true;
        const first = await job(url, queued[0].requestId);
        expect(first).toMatchObject({ state: 'queued', position: 1, startedAt: null });
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(sawQueue).toBe(true);
    expect(mostActive).toBe(2);
    for (const requestId of ids) expect(await job(url, requestId)).toMatchObject({ state: 'succeeded', error: null });
  }, 60_000);

  it('the CLI lists queued jobs with their state and position', async () => {
    const url = await startStudioProcess(newHome());
    // Each call held 6 s by the simulator: the two queued behind them are still queued whenever the CLI
    // (started through tsx, slow on a loaded machine) asks.
    for (let index = 0; index < 4; index += 1)
      await post(`${url}/api/generate`, {
        provider: 'api',
        prompt: `listed ${index} [sim:slow=6000]`,
        async: true,
        requestId: `cli-${index}`,
      });
    const listed = await runSvc(['inflight', 'ls', '--server', url]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/cli-2 .*queued #1/);
    expect(listed.stdout).toMatch(/cli-3 .*queued #2/);
    // Cancelled, not waited for: the test is about the listing.
    for (let index = 0; index < 4; index += 1) await fetch(`${url}/api/inflight/cli-${index}`, { method: 'DELETE' });
    await waitFor('the four to end', async () => ((await inflight(url)).length === 0 ? true : undefined));
  }, 40_000);
});

describe('a crash with gamma jobs parked between polls', () => {
  it('SIGKILL, restart: all eight succeed, one submit per job, none ran twice', async () => {
    const home = newHome();
    const first = await startStudioProcess(home);
    const ids = Array.from({ length: 8 }, (_, index) => `crash-${index}`);
    for (const [index, requestId] of ids.entries()) {
      expect(
        (await post(`${first}/api/generate`, { provider: 'gamma', prompt: `a crash harbour ${index}`, async: true, requestId })).status,
      ).toBe(202);
    }
    // Two slots, yet more than two predictions under way: a job waiting for its next poll lets its slot go
    // (state waiting, its prediction recorded, no lease).
    await waitFor('more predictions waiting than slots', async () => {
      const jobs = await inflight(first);
      const waiting = await Promise.all(jobs.filter((item) => item.state === 'waiting').map((item) => job(first, item.requestId)));
      return waiting.filter((record) => record.upstream).length > 2 ? true : undefined;
    });
    await waitFor('a first poll', async () => ((await gammaRequests(POLL)).length > 0 ? true : undefined));
    await running.at(-1)?.stop('SIGKILL');

    const restarted = await startStudioProcess(home);
    const records = await waitFor('all eight to end', async () => {
      const all = await Promise.all(ids.map((requestId) => job(restarted, requestId)));
      return all.every(ended) ? all : undefined;
    });
    for (const record of records) expect(record, record.requestId).toMatchObject({ state: 'succeeded', error: null, attempt: 1 });
    for (let index = 0; index < 8; index += 1) expect(await submitsOf(`a crash harbour ${index}`), `submits of job ${index}`).toBe(1);
    const history = (await (await fetch(`${restarted}/api/history?provider=gamma&limit=50`)).json()) as { items: { requestId: string }[] };
    const made = history.items.filter((item) => item.requestId.startsWith('crash-')).map((item) => item.requestId);
    expect(made.sort()).toEqual([...ids].sort());
  }, 90_000);

  it('a gamma job restarted after its deadline ends with a timeout, not a fresh run', async () => {
    const home = newHome();
    const env = { SVC_GAMMA_TIMEOUT_MS: '3000' };
    const first = await startStudioProcess(home, env);
    expect(
      (await post(`${first}/api/generate`, { provider: 'gamma', prompt: 'a late lighthouse [sim:never]', async: true, requestId: 'late' }))
        .status,
    ).toBe(202);
    const before = await waitFor('the prediction recorded', async () => {
      const record = await job(first, 'late');
      return record.upstream ? record : undefined;
    });
    expect(before.deadline).not.toBeNull();
    await running.at(-1)?.stop('SIGKILL');
    // Past the stored deadline before the studio comes back.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(before.deadline as string) - Date.now()) + 200));
    const restarted = await startStudioProcess(home, env);
    const done = await waitFor('the job to end', async () => {
      const record = await job(restarted, 'late');
      return ended(record) ? record : undefined;
    });
    expect(done).toMatchObject({ state: 'failed', error: { code: 'GENERATION_TIMEOUT' }, deadline: before.deadline });
    expect(await submitsOf('a late lighthouse')).toBe(1);
  }, 40_000);
});

describe('cancel, retry and the same requestId', () => {
  let url: string;

  beforeAll(async () => {
    url = await startStudioProcess(newHome());
  });

  it('a cancelled queued job never runs; a cancelled polling gamma job ends cancelled with no poll after', async () => {
    // Two direct calls the vendor holds keep both slots, then one queued behind them.
    for (let index = 0; index < 2; index += 1)
      await post(`${url}/api/generate`, {
        provider: 'api',
        prompt: `a slot holder ${index} [sim:slow=30000]`,
        async: true,
        requestId: `holder-${index}`,
      });
    expect(
      (await post(`${url}/api/generate`, { provider: 'gamma', prompt: 'a never run sketch', async: true, requestId: 'queued-cancel' }))
        .status,
    ).toBe(202);
    expect(await job(url, 'queued-cancel')).toMatchObject({ state: 'queued', position: 1 });
    const cancelled = await fetch(`${url}/api/inflight/queued-cancel`, { method: 'DELETE' });
    expect(cancelled.status).toBe(200);
    expect(await job(url, 'queued-cancel')).toMatchObject({ state: 'cancelled', startedAt: null, error: { code: 'JOB_CANCELLED' } });
    for (let index = 0; index < 2; index += 1) await fetch(`${url}/api/inflight/holder-${index}`, { method: 'DELETE' });

    // A polling one, cancelled while it waits for its next poll (parked): its polls stop with the cancel.
    await post(`${url}/api/generate`, { provider: 'gamma', prompt: 'a polled sketch [sim:never]', async: true, requestId: 'poller' });
    await waitFor('the poller polling', async () => ((await job(url, 'poller')).upstream ? true : undefined));
    const { upstream } = await job(url, 'poller');
    const pollPath = `/api/v1/model/prediction/${upstream?.operationId}`;
    const pollsOf = async () => (await gammaRequests(POLL)).filter((entry) => JSON.stringify(entry).includes(pollPath));
    await waitFor('a poll of the poller', async () => ((await pollsOf()).length > 0 ? true : undefined));
    await waitFor('the poller waiting', async () => ((await job(url, 'poller')).state === 'waiting' ? true : undefined));
    expect((await fetch(`${url}/api/inflight/poller`, { method: 'DELETE' })).status).toBe(200);
    await waitFor('the poller to end', async () => (ended(await job(url, 'poller')) ? true : undefined));
    const afterCancel = (await pollsOf()).length;
    expect(await job(url, 'poller')).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect((await pollsOf()).length).toBe(afterCancel);

    expect(await submitsOf('a never run sketch')).toBe(0);
  }, 40_000);

  it('POST /api/jobs/:id/retry of a failed job succeeds as a new attempt; the first stays listed (HTTP and svc retry)', async () => {
    // The vendor refuses the next submit once.
    const fault = await fetch(`${gammaOrigin}/__sim/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ route: SUBMIT, status: 500 }),
    });
    expect(fault.status).toBeLessThan(300);
    const failed = await post(`${url}/api/generate`, { provider: 'gamma', prompt: 'a retried bridge', requestId: 'retry-me' });
    expect(failed.status).toBe(502);
    expect(await job(url, 'retry-me')).toMatchObject({ state: 'failed', attempt: 1, retryOf: null });

    const retried = await post(`${url}/api/jobs/retry-me/retry`, {});
    expect(retried.status).toBe(202);
    expect(await retried.json()).toEqual({ requestId: 'retry-me~2', status: 'accepted', attempt: 2, retryOf: 'retry-me' });
    const second = await waitFor('the retry to end', async () => {
      const record = await job(url, 'retry-me~2');
      return ended(record) ? record : undefined;
    });
    expect(second).toMatchObject({ state: 'succeeded', attempt: 2, retryOf: 'retry-me' });
    const firstAttempt = await job(url, 'retry-me');
    expect(firstAttempt).toMatchObject({ state: 'failed', attempt: 1 });
    expect(firstAttempt.attempts.map((attempt) => [attempt.requestId, attempt.state])).toEqual([
      ['retry-me', 'failed'],
      ['retry-me~2', 'succeeded'],
    ]);

    // A succeeded job is not retried; through the CLI, a failed one is.
    const refused = await post(`${url}/api/jobs/retry-me~2/retry`, {});
    expect(refused.status).toBe(409);
    expect((await refused.json()).error.code).toBe('JOB_NOT_RETRYABLE');
    const viaCli = await runSvc(['retry', 'retry-me', '--server', url]);
    expect(viaCli.code, viaCli.stderr).toBe(0);
    expect(viaCli.stdout).toContain('retry-me~3');
    await waitFor('the third attempt to end', async () => (ended(await job(url, 'retry-me~3')) ? true : undefined));
    expect((await job(url, 'retry-me')).attempts.map((attempt) => attempt.requestId)).toEqual(['retry-me', 'retry-me~2', 'retry-me~3']);
  }, 40_000);

  it('the same requestId twice runs once: async twice, then sync, all answer the one job', async () => {
    const body = { provider: 'gamma', prompt: 'a single run tower', async: true, requestId: 'once' };
    expect((await post(`${url}/api/generate`, body)).status).toBe(202);
    expect((await post(`${url}/api/generate`, body)).status).toBe(202);
    const sync = await post(`${url}/api/generate`, { ...body, async: false });
    expect(sync.status).toBe(200);
    const result = (await sync.json()) as { requestId: string; images: { filename: string }[] };
    expect(result.requestId).toBe('once');
    expect((await job(url, 'once')).result).toMatchObject({ images: [{ filename: result.images[0].filename }] });
    // A per-request stream of the same request gets the job's end, and ends.
    const streamed = await fetch(`${url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ ...body, async: false }),
    });
    expect(streamed.status).toBe(200);
    const frames = (await streamed.text())
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { event: string; requestId: string });
    expect(frames).toMatchObject([{ event: 'done', requestId: 'once', result: { images: [{ filename: result.images[0].filename }] } }]);
    expect(await submitsOf('a single run tower')).toBe(1);
    // Another body with the same id is refused.
    const other = await post(`${url}/api/generate`, { ...body, prompt: 'another tower' });
    expect(other.status).toBe(409);
    expect((await other.json()).error.code).toBe('REQUEST_ID_IN_USE');
  }, 40_000);
});
