import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { jobRecord, type GenerationResult, type ImageJobRequest } from '../../src/studio/api/index.js';
import { createStudioContext } from '../../src/studio/context.js';
import type { JobHandler } from '../../src/studio/jobs/handlers.js';
import type { JobStore } from '../../src/studio/jobs/job-store.js';
import { Jobs } from '../../src/studio/jobs/jobs.js';
import { SqliteJobStore } from '../../src/studio/store/jobs.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// The engine's JobStore port: the engine must not lean on the SQLite store
// answering at once. Here every answer of the store arrives a turn of the
// event loop later, as a store across the network would answer; the queue's
// rules (limits, cancel of a queued job, one end per job, typed records)
// hold all the same.

const home = mkdtempSync(join(tmpdir(), 'svc-ports-'));
const ctx = await createStudioContext({ env: { SVC_HOME: home, PATH: process.env.PATH, SVC_MAX_RUNNING_JOBS: '2' } });
afterAll(async () => {
  await ctx.close();
  rmSync(home, { recursive: true, force: true });
});

/** The same store, every answer a turn later. */
function slowStore(store: JobStore): JobStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const answer: unknown = await (value as (...rest: unknown[]) => unknown).apply(target, args);
        await nextTurn();
        return answer;
      };
    },
  });
}

let running = 0;
let most = 0;
const ran: string[] = [];
const handler: JobHandler<'generate'> = {
  canResume: () => false,
  reachesUpstreamAtStart: () => true,
  budgetMs: () => 60_000,
  async run(_ctx, job): Promise<GenerationResult> {
    running += 1;
    most = Math.max(most, running);
    ran.push(job.requestId);
    await new Promise((resolve) => setTimeout(resolve, 30));
    running -= 1;
    return {
      requestId: job.requestId,
      provider: 'api',
      model: 'lang-5.6-luna',
      images: [],
      settings: {},
      timings: { upstreamMs: 30, saveMs: 0, totalMs: 30 },
    };
  },
};
const request = (id: string): ImageJobRequest => ({
  operation: 'generate',
  slots: [
    {
      requestId: id,
      lane: 'api',
      model: { requested: 'lang-5.6-luna', id: 'lang-5.6-luna', upstreamId: 'lang-5.6-luna' },
      fields: { prompt: `job ${id}`, format: 'png', options: {} },
    },
  ],
  inputs: { references: [] },
});

describe('the job engine over a JobStore that answers later', () => {
  it('keeps the limit, cancels a queued job before it runs, ends each job once, and reads typed records', async () => {
    const engine = new Jobs(ctx, slowStore(new SqliteJobStore(embeddedDatabase(ctx))), { generate: handler });
    await engine.recover();
    const submitted = await Promise.all(
      ['p-1', 'p-2', 'p-3', 'p-4', 'p-5', 'p-6'].map((id) =>
        engine.submit({ requestId: id, kind: 'generate', lane: 'api', model: 'lang-5.6-luna', request: request(id) }),
      ),
    );
    const cancelled = await engine.cancel('p-6');
    expect(cancelled).toMatchObject({ requestId: 'p-6', cancelling: true });
    const outcomes = await Promise.allSettled(submitted.map((job) => job.outcome));
    expect(outcomes.slice(0, 5).every((outcome) => outcome.status === 'fulfilled')).toBe(true);
    expect(outcomes[5]).toMatchObject({ status: 'rejected', reason: { code: 'JOB_CANCELLED' } });
    expect(most).toBeLessThanOrEqual(2);
    expect(ran.sort()).toEqual(['p-1', 'p-2', 'p-3', 'p-4', 'p-5']);

    const record = jobRecord.parse(await engine.get('p-3'));
    expect(record).toMatchObject({ kind: 'generate', state: 'succeeded', request: { slots: [{ fields: { prompt: 'job p-3' } }] } });
    expect((await engine.get('p-6'))?.state).toBe('cancelled');
    expect(await engine.inflight()).toEqual([]);
    await engine.stopAll('done', 1000);
  });
});
