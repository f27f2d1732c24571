import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finishedJobsAnswer, type FinishedJobsAnswer } from '../../src/studio/api/index.js';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';

// GET /api/jobs: the jobs that ended lately and how (the web UI's queue panel
// lists them under the unfinished ones of /api/inflight).

let studio: DemoStudio;
const post = (path: string, body: unknown) =>
  studio.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const finished = async (query = ''): Promise<FinishedJobsAnswer> => {
  const response = await studio.request(`/api/jobs${query}`);
  expect(response.status).toBe(200);
  return finishedJobsAnswer.parse(await response.json());
};

beforeAll(async () => {
  studio = await startDemoStudio('svc-finished-jobs-');
}, 30_000);

afterAll(async () => {
  await studio?.stop();
});

describe('GET /api/jobs', () => {
  it('lists the jobs that ended in the last hour with their outcome, newest end first, and not the unfinished ones', async () => {
    const before = new Date().toISOString();
    expect((await post('/api/generate', { prompt: 'a finished lighthouse', requestId: 'fin-ok' })).status).toBe(200);
    expect(
      (await post('/api/generate', { prompt: '[sim:slow=20000] a lighthouse cancelled', requestId: 'fin-cancel', async: true })).status,
    ).toBe(202);
    expect((await studio.request('/api/inflight/fin-cancel', { method: 'DELETE' })).status).toBe(200);
    expect(
      (await post('/api/generate', { prompt: '[sim:slow=20000] a lighthouse still running', requestId: 'fin-running', async: true }))
        .status,
    ).toBe(202);

    const answer = await finished();
    expect(Date.parse(answer.since)).toBeLessThanOrEqual(Date.parse(before));
    expect(Date.parse(answer.since)).toBeGreaterThan(Date.parse(before) - 61 * 60 * 1000);
    const ids = answer.jobs.map((job) => job.requestId);
    expect(ids).toEqual(['fin-cancel', 'fin-ok']);
    const [cancelled, succeeded] = answer.jobs;
    expect(cancelled).toMatchObject({ kind: 'generate', state: 'cancelled', error: { code: 'JOB_CANCELLED' }, attempt: 1, retryOf: null });
    expect(succeeded).toMatchObject({ kind: 'generate', state: 'succeeded', error: null });
    expect(succeeded.provider).not.toBe('auto');
    expect(Date.parse(succeeded.finishedAt)).toBeGreaterThanOrEqual(Date.parse(before));

    // A retry is a new attempt: it names the first one.
    const retry = await post('/api/jobs/fin-cancel/retry', { requestId: 'fin-retry' });
    expect(retry.status).toBe(202);
    await studio.request('/api/inflight/fin-retry', { method: 'DELETE' });
    expect((await finished('?limit=1')).jobs).toMatchObject([
      { requestId: 'fin-retry', attempt: 2, retryOf: 'fin-cancel', state: 'cancelled' },
    ]);

    await studio.request('/api/inflight/fin-running', { method: 'DELETE' });
  });

  it('takes `since` and `limit`, and refuses bad values with BAD_REQUEST naming the field', async () => {
    expect((await finished(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).jobs).toEqual([]);
    expect((await finished('?since=2020-01-01T00:00:00Z')).jobs.length).toBeGreaterThanOrEqual(3);
    for (const [query, field] of [
      ['?since=yesterday', 'since'],
      ['?limit=0', 'limit'],
      ['?limit=201', 'limit'],
    ] as const) {
      const response = await studio.request(`/api/jobs${query}`);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error: { code: 'BAD_REQUEST', details: { field } } });
    }
  });
});
