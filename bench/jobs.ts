// Durable jobs: the cost of reading a job and of start-up recovery, each as a
// ratio against a baseline measured in the same run.
//
// 1. GET /api/jobs/:requestId (a finished job, read from SQLite) against
//    GET /api/health (no storage) on the same studio, interleaved.
// 2. Start-up recovery: `startStudio` on a state dir whose jobs table holds
//    1,000 `running` rows (each becomes `interrupted` and publishes an error
//    event) against the same start on an empty jobs table; rounds alternate.
//
// Run: node --import tsx bench/jobs.ts
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStudioContext } from '../src/studio/context.js';
import { startStudio } from '../src/studio/main.js';
import { insertJob, markJobRunning } from '../src/studio/store/jobs.js';
import { percentile, round, table } from './lib/stats.js';

const READS = 2000;
const RECOVERY_ROUNDS = 10;
const RUNNING_ROWS = 1000;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p = (values: number[], q: number) => round(percentile(sorted(values), q));

// --- 1. Reading a job.
const home = mkdtempSync(join(tmpdir(), 'svc-bench-jobs-'));
const studio = await startStudio({ env: { SVC_HOME: home, PATH: process.env.PATH }, port: 0, descriptor: false });
const now = new Date().toISOString();
insertJob(studio.ctx.db, { id: 'bench-job', kind: 'generate', lane: 'api', model: 'lang-5.6-luna', request: JSON.stringify({ operation: 'generate', slots: [] }), created_at: now });
studio.ctx.db.prepare(`UPDATE jobs SET state = 'succeeded', finished_at = ?, result = ? WHERE id = 'bench-job'`).run(now, JSON.stringify({ requestId: 'bench-job', images: [] }));
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
function stateDir(rows: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-recovery-'));
  const ctx = createStudioContext({ env: { SVC_HOME: dir, PATH: process.env.PATH } });
  const at = new Date().toISOString();
  ctx.db.transaction(() => {
    for (let index = 0; index < rows; index += 1) {
      insertJob(ctx.db, { id: `running-${index}`, kind: 'generate', lane: 'api', model: 'lang-5.6-luna', request: JSON.stringify({ operation: 'generate', slots: [] }), created_at: at });
      markJobRunning(ctx.db, `running-${index}`, 'planning', at);
    }
  })();
  void ctx.close();
  return dir;
}
const templates = { full: stateDir(RUNNING_ROWS), empty: stateDir(0) };
async function startOnCopy(template: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-recovery-run-'));
  cpSync(template, dir, { recursive: true });
  const started = performance.now();
  const running = await startStudio({ env: { SVC_HOME: dir, PATH: process.env.PATH }, port: 0, descriptor: false });
  const startMs = performance.now() - started;
  // Recovery's cost is the difference of the two start-ups; every row must have been ended.
  const left = running.ctx.db.prepare('SELECT COUNT(*) AS n FROM jobs WHERE finished_at IS NULL').get() as { n: number };
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

console.log(`jobs: ${READS} interleaved reads; ${RECOVERY_ROUNDS} alternating start-ups with ${RUNNING_ROWS} running rows vs none`);
console.log(
  table(
    ['measure', 'p50 ms', 'p99 ms', 'baseline p50 ms', 'ratio of p50'],
    [
      ['GET /api/jobs/:id vs GET /api/health', p(jobMs, 0.5), p(jobMs, 0.99), p(healthMs, 0.5), round(percentile(sorted(jobMs), 0.5) / percentile(sorted(healthMs), 0.5), 3)],
      [`startStudio with ${RUNNING_ROWS} running jobs vs none`, p(fullMs, 0.5), p(fullMs, 0.99), p(emptyMs, 0.5), round(percentile(sorted(fullMs), 0.5) / percentile(sorted(emptyMs), 0.5), 3)],
    ],
  ),
);
console.log(
  JSON.stringify({
    bench: 'jobs',
    getJobMs: { p50: p(jobMs, 0.5), p99: p(jobMs, 0.99) },
    healthMs: { p50: p(healthMs, 0.5), p99: p(healthMs, 0.99) },
    recovery: { rows: RUNNING_ROWS, startMs: { p50: p(fullMs, 0.5), p99: p(fullMs, 0.99) }, emptyStartMs: { p50: p(emptyMs, 0.5) }, addedMs: round(percentile(sorted(fullMs), 0.5) - percentile(sorted(emptyMs), 0.5)) },
  }),
);
