import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobRecord, type JobRecord } from '../../src/studio/api/index.js';
import { startRig, solidPng, type Rig } from '../generate/rig.js';

// GET /api/jobs/:requestId over the life of a job: every end state, the stored
// request (never image bytes), a finished id sent again, and the retention sweep.

let rig: Rig;

beforeAll(async () => {
  rig = await startRig();
});

afterAll(async () => {
  await rig.stop();
});

async function job(requestId: string): Promise<{ status: number; body: JobRecord & { error: { code: string } | null } }> {
  const response = await rig.get(`/api/jobs/${requestId}`);
  return { status: response.status, body: await response.json() };
}

describe('GET /api/jobs/:requestId', () => {
  it('answers a succeeded job with its result; the stored request holds descriptors, never image bytes', async () => {
    const reference = await solidPng(48, 32);
    const response = await rig.post('/api/generate', {
      prompt: 'a harbour',
      provider: 'api',
      requestId: 'jobs-ok',
      references: [reference],
    });
    expect(response.status).toBe(200);
    const { status, body } = await job('jobs-ok');
    expect(status).toBe(200);
    expect(jobRecord.safeParse(body).error).toBeUndefined();
    expect(body).toMatchObject({
      requestId: 'jobs-ok',
      kind: 'generate',
      state: 'succeeded',
      phase: 'saving',
      provider: 'api',
      model: 'lang-5.6-luna',
      error: null,
    });
    expect(body.startedAt).not.toBeNull();
    expect(body.finishedAt).not.toBeNull();
    expect(body.request).toMatchObject({
      operation: 'generate',
      slots: [{ requestId: 'jobs-ok', lane: 'api', fields: { prompt: 'a harbour' } }],
    });
    expect((body.request as { inputs: unknown }).inputs).toEqual({
      references: [
        {
          source: 'inline',
          format: 'png',
          width: 48,
          height: 32,
          bytes: expect.any(Number),
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      ],
    });
    expect(JSON.stringify(body.request)).not.toContain(reference.slice(30, 90));
  });

  it('answers failed and cancelled jobs with their error', async () => {
    expect(
      (await rig.post('/api/generate', { prompt: 'refused [sim:moderation]', provider: 'api', requestId: 'jobs-failed' })).status,
    ).toBe(422);
    expect((await job('jobs-failed')).body).toMatchObject({ state: 'failed', error: { code: 'MODERATION_REFUSED' }, result: null });

    const accepted = await rig.post('/api/generate', {
      prompt: 'slow [sim:slow=5000]',
      provider: 'api',
      requestId: 'jobs-cancelled',
      async: true,
    });
    expect(accepted.status).toBe(202);
    expect((await job('jobs-cancelled')).body.state).toMatch(/^(queued|running)$/);
    const cancel = await fetch(`${rig.studio.url}/api/inflight/jobs-cancelled`, { method: 'DELETE' });
    expect(cancel.status).toBe(200);
    expect((await job('jobs-cancelled')).body).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
  });

  it('answers a finished job id sent again with the same body from the job (no second run); another body is 409 REQUEST_ID_IN_USE', async () => {
    const before = (await job('jobs-failed')).body;
    const same = await rig.post('/api/generate', { prompt: 'refused [sim:moderation]', provider: 'api', requestId: 'jobs-failed' });
    expect(same.status).toBe(422);
    expect((await same.json()).error.code).toBe('MODERATION_REFUSED');
    expect((await job('jobs-failed')).body).toMatchObject({ state: 'failed', createdAt: before.createdAt, finishedAt: before.finishedAt });
    const other = await rig.post('/api/generate', { prompt: 'a second harbour', provider: 'api', requestId: 'jobs-failed' });
    expect(other.status).toBe(409);
    expect((await other.json()).error).toMatchObject({ code: 'REQUEST_ID_IN_USE', details: { requestId: 'jobs-failed', state: 'failed' } });
  });

  it('a retried job whose stored input image was removed fails with JOB_INPUTS_MISSING', async () => {
    const reference = await solidPng(40, 40);
    expect(
      (
        await rig.post('/api/generate', {
          prompt: 'refused with a reference [sim:moderation]',
          provider: 'api',
          requestId: 'jobs-lost-input',
          references: [reference],
        })
      ).status,
    ).toBe(422);
    const { sha256 } = ((await job('jobs-lost-input')).body.request as { inputs: { references: { sha256: string }[] } }).inputs
      .references[0];
    rmSync(join(rig.studio.ctx.paths.jobInputsDir, sha256));
    expect((await rig.post('/api/jobs/jobs-lost-input/retry', {})).status).toBe(202);
    let retried = (await job('jobs-lost-input~2')).body;
    while (retried.finishedAt === null) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      retried = (await job('jobs-lost-input~2')).body;
    }
    expect(retried).toMatchObject({ state: 'failed', error: { code: 'JOB_INPUTS_MISSING', details: { sha256 } } });
  });

  it('forgets jobs that ended longer ago than the retention, and answers 404 JOB_NOT_FOUND; then the input files no job holds', async () => {
    const unknown = await job('jobs-never');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('JOB_NOT_FOUND');
    const inputs = rig.studio.ctx.paths.jobInputsDir;
    const { sha256 } = ((await job('jobs-ok')).body.request as { inputs: { references: { sha256: string }[] } }).inputs.references[0];
    // A file no job holds (a refused request's): kept while it is new, as one a submit may be about to record.
    const orphan = 'f'.repeat(64);
    writeFileSync(join(inputs, orphan), 'not held');
    await rig.studio.ctx.jobs.sweep(3_600_000);
    expect(readdirSync(inputs)).toEqual(expect.arrayContaining([sha256, orphan]));
    // A day later than now, with a one-hour retention: every finished job goes, nothing running does.
    const removed = await rig.studio.ctx.jobs.sweep(3_600_000, Date.now() + 86_400_000);
    expect(removed).toBeGreaterThanOrEqual(3);
    expect((await job('jobs-ok')).status).toBe(404);
    expect(readdirSync(inputs)).not.toContain(sha256);
    expect(readdirSync(inputs)).not.toContain(orphan);
  });

  it('refuses a malformed requestId with the pattern', async () => {
    const response = await rig.get(`/api/jobs/${encodeURIComponent('not a valid id!')}`);
    expect(response.status).toBe(400);
    expect((await response.json()).error.details.field).toBe('requestId');
  });
});
