// Durable jobs: the cost of reading a job, of start-up recovery and of the
// dispatcher, each as a ratio against a baseline measured in the same run.
//
// 1. GET /api/jobs/:requestId (a finished job, read from SQLite) against
//    GET /api/health (no storage) on the same studio, interleaved.
// 2. Start-up recovery: `startStudio` on a state dir whose jobs table holds
//    1,000 `running` rows that reached their upstream (each becomes
//    `interrupted` and publishes an error event) against the same start on an
//    empty jobs table; rounds alternate.
// 3. The dispatcher: 1, 8 and 64 jobs submitted at once through the engine
//    (insert, `phase: queued`, claim under the limits and a lease, a handler
//    that answers at once, finish, `done`) against writing the same rows
//    without a dispatcher (insert, then finish); jobs per second of each.
// 4. Accept-to-start latency: from `submit` to the handler's start, for one
//    job alone and for each of 64 submitted at once (63 queued behind the
//    first), against a bare `setImmediate` turn measured beside it.
//
// It uses the engine's API and the store's row functions only, so the same
// file measures an earlier tree (copy it there; bench/README's baseline way).
//
// Run: node --import tsx bench/jobs.ts
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStudioContext } from '../src/studio/context.js';
import { startStudio } from '../src/studio/main.js';
import { insertJob, finishJob, SqliteJobStore, type NewJobRow } from '../src/studio/store/jobs.js';
import { Jobs } from '../src/studio/jobs/jobs.js';
import type { JobHandler } from '../src/studio/jobs/handlers.js';
import { percentile, round, table } from './lib/stats.js';
import { embeddedDatabase } from '../src/studio/store/open.js';

const READS = 2000;
const RECOVERY_ROUNDS = 10;
const RUNNING_ROWS = 1000;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p = (values: number[], q: number) => round(percentile(sorted(values), q));

// --- 1. Reading a job.
const home = mkdtempSync(join(tmpdir(), 'svc-bench-jobs-'));
const studio = await startStudio({ env: { SVC_HOME: home, PATH: process.env.PATH }, port: 0, descriptor: false });
const now = new Date().toISOString();
// A generate job as the engine stores it (one slot), and its result: what GET /api/jobs parses by kind.
const MODEL = { requested: 'lang-5.6-luna', id: 'lang-5.6-luna', upstreamId: 'lang-5.6-luna' };
const request = {
  operation: 'generate' as const,
  slots: [{ requestId: 'bench', lane: 'api' as const, model: MODEL, fields: { prompt: 'bench', format: 'png' as const, options: {} } }],
  inputs: { references: [] },
};
const resultOf = (requestId: string) => ({
  requestId,
  provider: 'api',
  model: 'lang-5.6-luna',
  images: [],
  settings: {},
  timings: { upstreamMs: 0, saveMs: 0, totalMs: 0 },
});
const row = (id: string, at: string): NewJobRow => ({
  id,
  kind: 'generate',
  lane: 'api',
  model: 'lang-5.6-luna',
  request: JSON.stringify(request),
  created_at: at,
  priority: 0,
  ordering_key: null,
  fingerprint: null,
  attempt: 1,
  retry_of: null,
  pool: 'api',
  pool_limit: null,
  budget_ms: 60_000,
  reaches_at_start: 1,
});
insertJob(embeddedDatabase(studio.ctx), row('bench-job', now), []);
embeddedDatabase(studio.ctx)
  .prepare(`UPDATE jobs SET state = 'succeeded', finished_at = ?, result = ? WHERE id = 'bench-job'`)
  .run(now, JSON.stringify(resultOf('bench-job')));
const time = async (path: string) => {
  const started = performance.now();
  const response = await fetch(`${studio.url}${path}`);
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return performance.now() - started;
};
for (let index = 0; index < 100; index += 1) {
  await time('/api/jobs/bench-job');
  await time('/api/health');
}
const jobMs: number[] = [];
const healthMs: number[] = [];
for (let index = 0; index < READS; index += 1) {
  if (index % 2 === 0) {
    jobMs.push(await time('/api/jobs/bench-job'));
    healthMs.push(await time('/api/health'));
  } else {
    healthMs.push(await time('/api/health'));
    jobMs.push(await time('/api/jobs/bench-job'));
  }
}
await studio.close();
rmSync(home, { recursive: true, force: true });

// --- 2. Start-up recovery.
async function stateDir(rows: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-recovery-'));
  const ctx = await createStudioContext({ env: { SVC_HOME: dir, PATH: process.env.PATH } });
  const at = new Date().toISOString();
  embeddedDatabase(ctx).transaction(() => {
    for (let index = 0; index < rows; index += 1) {
      insertJob(embeddedDatabase(ctx), row(`running-${index}`, at), []);
      embeddedDatabase(ctx)
        .prepare(`UPDATE jobs SET state = 'running', phase = 'planning', started_at = ?, reached_upstream = 1 WHERE id = ?`)
        .run(at, `running-${index}`);
    }
  })();
  await ctx.close();
  return dir;
}
const templates = { full: await stateDir(RUNNING_ROWS), empty: await stateDir(0) };
async function startOnCopy(template: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-recovery-run-'));
  cpSync(template, dir, { recursive: true });
  const started = performance.now();
  const running = await startStudio({ env: { SVC_HOME: dir, PATH: process.env.PATH }, port: 0, descriptor: false });
  const startMs = performance.now() - started;
  // Recovery's cost is the difference of the two start-ups; every row must have been ended.
  const left = embeddedDatabase(running.ctx).prepare('SELECT COUNT(*) AS n FROM jobs WHERE finished_at IS NULL').get() as { n: number };
  if (left.n !== 0) throw new Error(`${left.n} jobs left unfinished after recovery`);
  await running.close();
  rmSync(dir, { recursive: true, force: true });
  return startMs;
}
const fullMs: number[] = [];
const emptyMs: number[] = [];
await startOnCopy(templates.empty);
for (let index = 0; index < RECOVERY_ROUNDS; index += 1) {
  if (index % 2 === 0) {
    fullMs.push(await startOnCopy(templates.full));
    emptyMs.push(await startOnCopy(templates.empty));
  } else {
    emptyMs.push(await startOnCopy(templates.empty));
    fullMs.push(await startOnCopy(templates.full));
  }
}
for (const dir of Object.values(templates)) rmSync(dir, { recursive: true, force: true });

// --- 3. The dispatcher.
const DISPATCH_ROUNDS = 20;
const BATCHES = [1, 8, 64];
const dispatchHome = mkdtempSync(join(tmpdir(), 'svc-bench-dispatch-'));
const dispatchCtx = await createStudioContext({ env: { SVC_HOME: dispatchHome, PATH: process.env.PATH } });
// A handler that answers at once: what is timed is the engine's own work.
/** When each job's handler started (section 4 reads it). */
const startedAt = new Map<string, number>();
const instant: JobHandler<'generate'> = {
  canResume: () => false,
  reachesUpstreamAtStart: () => true,
  budgetMs: () => 60_000,
  run: async (_ctx, job) => {
    startedAt.set(job.requestId, performance.now());
    return resultOf(job.requestId);
  },
};
const engine = new Jobs(dispatchCtx, new SqliteJobStore(embeddedDatabase(dispatchCtx)), { generate: instant });
await engine.recover();
let serial = 0;
async function throughEngine(count: number): Promise<number> {
  const started = performance.now();
  const submitted = await Promise.all(
    Array.from({ length: count }, () => engine.submit({ requestId: `d-${serial++}`, kind: 'generate', lane: 'api', model: 'm', request })),
  );
  await Promise.all(submitted.map((job) => job.outcome));
  return performance.now() - started;
}
async function withoutEngine(count: number): Promise<number> {
  const started = performance.now();
  const ids = Array.from({ length: count }, () => `r-${serial++}`);
  const at = new Date().toISOString();
  for (const id of ids) insertJob(embeddedDatabase(dispatchCtx), row(id, at), []);
  await Promise.resolve();
  for (const id of ids)
    finishJob(embeddedDatabase(dispatchCtx), id, { state: 'succeeded', result: resultOf(id) }, new Date().toISOString());
  return performance.now() - started;
}
const dispatch: { batch: number; engineMs: number[]; rowsMs: number[] }[] = BATCHES.map((batch) => ({ batch, engineMs: [], rowsMs: [] }));
for (const entry of dispatch) {
  await throughEngine(entry.batch);
  await withoutEngine(entry.batch);
  for (let round = 0; round < DISPATCH_ROUNDS; round += 1) {
    if (round % 2 === 0) {
      entry.engineMs.push(await throughEngine(entry.batch));
      entry.rowsMs.push(await withoutEngine(entry.batch));
    } else {
      entry.rowsMs.push(await withoutEngine(entry.batch));
      entry.engineMs.push(await throughEngine(entry.batch));
    }
  }
}

// --- 4. Accept-to-start latency.
const LATENCY_ROUNDS = 20;
/** Milliseconds from each submit call to its handler's start, for `count` submitted at once. */
async function acceptToStart(count: number): Promise<number[]> {
  const accepted = new Map<string, number>();
  const submitted = await Promise.all(
    Array.from({ length: count }, () => {
      const requestId = `l-${serial++}`;
      accepted.set(requestId, performance.now());
      return engine.submit({ requestId, kind: 'generate', lane: 'api', model: 'm', request });
    }),
  );
  await Promise.all(submitted.map((job) => job.outcome));
  return [...accepted].map(([requestId, at]) => (startedAt.get(requestId) ?? NaN) - at);
}
const turnMs = async (): Promise<number> => {
  const started = performance.now();
  await new Promise((resolve) => setImmediate(resolve));
  return performance.now() - started;
};
const latency: { queued: number; ms: number[]; turn: number[] }[] = [1, 64].map((count) => ({ queued: count, ms: [], turn: [] }));
for (const entry of latency) {
  await acceptToStart(entry.queued);
  for (let round = 0; round < LATENCY_ROUNDS; round += 1) {
    entry.ms.push(...(await acceptToStart(entry.queued)));
    entry.turn.push(await turnMs());
  }
}
await engine.stopAll('bench over', 1000);
await dispatchCtx.close();
rmSync(dispatchHome, { recursive: true, force: true });
const perSecond = (count: number, ms: number) => round((count * 1000) / ms);

console.log(
  `jobs: ${READS} interleaved reads; ${RECOVERY_ROUNDS} alternating start-ups with ${RUNNING_ROWS} running rows vs none; ${DISPATCH_ROUNDS} alternating dispatch rounds per batch`,
);
console.log(
  table(
    ['measure', 'p50 ms', 'p99 ms', 'baseline p50 ms', 'ratio of p50'],
    [
      [
        'GET /api/jobs/:id vs GET /api/health',
        p(jobMs, 0.5),
        p(jobMs, 0.99),
        p(healthMs, 0.5),
        round(percentile(sorted(jobMs), 0.5) / percentile(sorted(healthMs), 0.5), 3),
      ],
      [
        `startStudio with ${RUNNING_ROWS} running jobs vs none`,
        p(fullMs, 0.5),
        p(fullMs, 0.99),
        p(emptyMs, 0.5),
        round(percentile(sorted(fullMs), 0.5) / percentile(sorted(emptyMs), 0.5), 3),
      ],
      ...latency.map(({ queued, ms, turn }) => [
        `accept to start, ${queued} submitted at once (vs one event-loop turn)`,
        p(ms, 0.5),
        p(ms, 0.99),
        p(turn, 0.5),
        round(percentile(sorted(ms), 0.5) / Math.max(percentile(sorted(turn), 0.5), 0.001), 1),
      ]),
      ...dispatch.map(({ batch, engineMs, rowsMs }) => [
        `${batch} jobs through the dispatcher vs the same rows without (${perSecond(batch, percentile(sorted(engineMs), 0.5))} vs ${perSecond(batch, percentile(sorted(rowsMs), 0.5))} jobs/s)`,
        p(engineMs, 0.5),
        p(engineMs, 0.99),
        p(rowsMs, 0.5),
        round(percentile(sorted(engineMs), 0.5) / percentile(sorted(rowsMs), 0.5), 3),
      ]),
    ],
  ),
);
console.log(
  JSON.stringify({
    bench: 'jobs',
    getJobMs: { p50: p(jobMs, 0.5), p99: p(jobMs, 0.99) },
    healthMs: { p50: p(healthMs, 0.5), p99: p(healthMs, 0.99) },
    recovery: {
      rows: RUNNING_ROWS,
      startMs: { p50: p(fullMs, 0.5), p99: p(fullMs, 0.99) },
      emptyStartMs: { p50: p(emptyMs, 0.5) },
      addedMs: round(percentile(sorted(fullMs), 0.5) - percentile(sorted(emptyMs), 0.5)),
    },
    acceptToStart: latency.map(({ queued, ms }) => ({ queued, p50: p(ms, 0.5), p99: p(ms, 0.99) })),
    dispatch: dispatch.map(({ batch, engineMs, rowsMs }) => ({
      batch,
      engineJobsPerSecond: perSecond(batch, percentile(sorted(engineMs), 0.5)),
      rowsJobsPerSecond: perSecond(batch, percentile(sorted(rowsMs), 0.5)),
      ratio: round(percentile(sorted(engineMs), 0.5) / percentile(sorted(rowsMs), 0.5), 3),
    })),
  }),
);
