import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCrashRig, type CrashRig } from '../helpers/crash-rig.js';
import { waitFor } from './gamma-delta-epsilon-rig.js';

// The bar's crash test for gamma, with real processes: the simulators in
// their own process (`svc sim serve`), the studio in another, configured only
// by the environment the simulators printed. The studio is killed with
// SIGKILL while it polls a prediction; restarted, it resumes the prediction it
// recorded and the image still lands.

/** Each prediction runs this long upstream: long enough to kill the studio mid-poll. */
const LATENCY_MS = 3000;

let rig: CrashRig;
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const job = (url: string, requestId: string) => rig.job(url, requestId);
/** The gamma simulator's log of one route (it runs in the other process: read over HTTP). */
const simRequests = (route: string) => rig.simRequests<{ id: number; path: string; outcome: string }>('SVC_GAMMA_BASE_URL', route);

beforeAll(async () => {
  rig = await startCrashRig('gamma-resume', LATENCY_MS);
});

afterAll(() => rig.close());

describe('a gamma job across a studio crash', () => {
  it('svc sim serve gives the gamma, delta and epsilon lanes their base URLs and keys', () => {
    expect(rig.simEnv).toMatchObject({
      SVC_GAMMA_BASE_URL: expect.stringMatching(/\/api\/v1$/),
      SVC_DELTA_BASE_URL: expect.any(String),
      SVC_EPSILON_BASE_URL: expect.any(String),
    });
    expect(Object.keys(rig.simEnv)).toEqual(expect.arrayContaining(['GAMMA_API_KEY', 'DELTA_API_KEY', 'EPSILON_API_KEY']));
  });

  it('SIGKILL during the poll, restart: the recorded prediction is resumed and the image lands in history', async () => {
    const first = await rig.startStudio();
    const accepted = await post(`${first}/api/generate`, {
      provider: 'gamma',
      prompt: 'a lighthouse in a storm',
      async: true,
      requestId: 'gamma-crash',
    });
    expect(accepted.status).toBe(202);
    // The prediction id is stored as soon as it is known; from then on the studio polls.
    const recorded = await waitFor('the prediction id on the job', async () => (await job(first, 'gamma-crash')).upstream ?? undefined);
    const before = await job(first, 'gamma-crash');
    expect(before).toMatchObject({ provider: 'gamma' });
    // Polling: running during a status call, waiting between two.
    expect(['running', 'waiting']).toContain(before.state);
    await waitFor('a first poll', async () => (await simRequests('GET /api/v1/model/prediction/:id')).length > 0);
    await rig.stopStudio('SIGKILL');

    const restarted = await rig.startStudio();
    const done = await waitFor('the resumed job to end', async () => {
      const record = await job(restarted, 'gamma-crash');
      return record.finishedAt === null ? undefined : record;
    });
    expect(done).toMatchObject({
      requestId: 'gamma-crash',
      state: 'succeeded',
      provider: 'gamma',
      error: null,
      upstream: { operationId: recorded.operationId, state: 'completed' },
    });
    const result = done.result as { images: { filename: string }[]; settings: Record<string, unknown> };
    expect(result.settings).toMatchObject({ predictionId: recorded.operationId, upstreamModel: 'lang/lang-image-2/text-to-image' });
    // Within the deadline it got when it first started: the restart did not give it a fresh one.
    expect(done.deadline).toBe(before.deadline);

    const history = (await (await fetch(`${restarted}/api/history?provider=gamma`)).json()) as {
      items: { filename: string; prompt: string }[];
    };
    expect(history.items.map((item) => item.filename)).toEqual([result.images[0].filename]);
    expect((await fetch(`${restarted}/generated/${result.images[0].filename}`)).status).toBe(200);

    // One submit only: the restarted studio polled the same prediction instead of generating again.
    expect(await simRequests('POST /api/v1/model/generateImage')).toHaveLength(1);
    const polls = await simRequests('GET /api/v1/model/prediction/:id');
    expect(new Set(polls.map((entry) => entry.path))).toEqual(new Set([`/api/v1/model/prediction/${recorded.operationId}`]));
  }, 30_000);

  it('a graceful stop (SIGTERM) mid-poll leaves the job to resume, not cancelled', async () => {
    const first = await rig.startStudio();
    expect(
      (await post(`${first}/api/generate`, { provider: 'gamma', prompt: 'a calm harbour', async: true, requestId: 'gamma-stop' })).status,
    ).toBe(202);
    const recorded = await waitFor('the prediction id on the job', async () => (await job(first, 'gamma-stop')).upstream ?? undefined);
    await rig.stopStudio('SIGTERM');

    const restarted = await rig.startStudio();
    const done = await waitFor('the resumed job to end', async () => {
      const record = await job(restarted, 'gamma-stop');
      return record.finishedAt === null ? undefined : record;
    });
    expect(done).toMatchObject({ state: 'succeeded', error: null, upstream: { operationId: recorded.operationId } });
  }, 30_000);
});
