// Manager scale benchmark: one manager follows 50 chat servers at once while
// each publishes events (mostly agent output, every fifth a saved message).
// Measured: the delay from a worker's event to the manager's cache update
// (p50/p99) and the manager's memory, against the workers' own delivery to a
// plain event client per worker (no cache) in the same run. Workers, manager
// and baseline client are three processes.
//
//   node --import tsx bench/manager.ts           BENCH_SECONDS=4 for a quick look
import { fileURLToPath } from 'node:url';
import { startChild } from './lib/child.js';
import { round, table } from './lib/stats.js';

const WORKERS = 50;
const RATE_PER_WORKER = 10;
const WARM_UP_SECONDS = 1;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
if (!(SECONDS > 0 && SECONDS <= 30)) throw new Error('BENCH_SECONDS must be in (0, 30].');

interface Report {
  type: 'report';
  count: number;
  p50: number;
  p99: number;
  max: number;
  rssMb: number;
  peakRssMb: number;
}

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const workers = startChild(here('./lib/manager-workers.ts'), [String(WORKERS)]);
const manager = startChild(here('./lib/manager-child.ts'), ['manager']);
const direct = startChild(here('./lib/manager-child.ts'), ['direct']);
const followers = [manager, direct];

async function publish(seconds: number): Promise<number> {
  workers.send({ type: 'publish', ratePerWorker: RATE_PER_WORKER, seconds });
  const { count } = await workers.next<{ type: 'published'; count: number }>('published', (seconds + 30) * 1000);
  // The tail: let the last events arrive.
  await new Promise((resolve) => setTimeout(resolve, 500));
  return count;
}

console.error(`manager bench: ${WORKERS} workers × ${RATE_PER_WORKER} events/s for ${SECONDS} s`);
try {
  const { urls } = await workers.next<{ type: 'ready'; urls: string[] }>('ready', 120_000);
  for (const follower of followers) follower.send({ type: 'follow', urls });
  await Promise.all(followers.map((follower) => follower.next('following', 60_000)));
  const idle: Report[] = [];
  for (const follower of followers) {
    follower.send({ type: 'report' });
    idle.push(await follower.next<Report>('report'));
  }
  await publish(WARM_UP_SECONDS);
  for (const follower of followers) {
    follower.send({ type: 'reset' });
    await follower.next('reset');
  }
  const published = await publish(SECONDS);
  const [managed, baseline] = await Promise.all(
    followers.map(async (follower) => {
      follower.send({ type: 'report' });
      return follower.next<Report>('report');
    }),
  );
  const ratios = {
    delayP50: managed.p50 / baseline.p50,
    delayP99: managed.p99 / baseline.p99,
    idleRss: idle[0].rssMb / idle[1].rssMb,
    peakRss: managed.peakRssMb / baseline.peakRssMb,
  };
  const row = (name: string, report: Report, idleReport: Report) => [
    name,
    `${report.count}/${published}`,
    round(report.p50, 2),
    round(report.p99, 2),
    round(report.max, 1),
    round(idleReport.rssMb, 1),
    round(report.peakRssMb, 1),
  ];
  console.log(
    table(
      ['follower', 'events seen', 'delay p50 ms', 'delay p99 ms', 'max ms', 'idle RSS MB', 'peak RSS MB'],
      [
        row('manager (cache updated)', managed, idle[0]),
        row('plain client per worker', baseline, idle[1]),
        [
          'ratio manager/plain',
          '',
          round(ratios.delayP50, 2),
          round(ratios.delayP99, 2),
          '',
          round(ratios.idleRss, 2),
          round(ratios.peakRss, 2),
        ],
      ],
    ),
  );
  console.log(
    JSON.stringify({
      bench: 'manager',
      workers: WORKERS,
      ratePerWorker: RATE_PER_WORKER,
      seconds: SECONDS,
      published,
      manager: managed,
      baseline,
      idle: { managerRssMb: round(idle[0].rssMb, 1), baselineRssMb: round(idle[1].rssMb, 1) },
      ratios: Object.fromEntries(Object.entries(ratios).map(([key, value]) => [key, round(value, 3)])),
    }),
  );
} finally {
  for (const child of [...followers, workers]) child.send({ type: 'stop' });
  await Promise.all([...followers, workers].map((child) => child.stop()));
}
