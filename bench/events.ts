// Event channel benchmark. (1) Publish cost, in this process, nobody
// listening: the EventChannel with its replay in memory (the chat server's)
// against the studio's bus (the same channel over the event log: one SQLite
// INSERT per publish), alternating rounds. (2) SSE fan-out: 256 listeners,
// 1,000 events/s, each event carrying its publish time. Three servers in the
// same run: the in-memory channel and the studio's bus on the product's
// Fastify app, and a bare node:http broadcast (the same frame bytes, one
// res.write per listener). Each server and each group of 256 listeners is its
// own process. The BENCH_SECONDS (default 10) of publishing per server are
// split into rounds in the order A B C C B A ..., after a warm-up, so
// background load on the machine hits all alike.
//
//   node --import tsx bench/events.ts            BENCH_SECONDS=4 for a quick look
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventChannel } from '../src/common/events/channel.js';
import { studioEventChannel } from '../src/studio/event-bus.js';
import { openDatabase } from '../src/studio/store/database.js';
import { SqliteEventLog } from '../src/studio/store/events.js';
import { startChild, type Child } from './lib/child.js';
import type { ListenerReport } from './lib/sse-listeners.js';
import { round, table } from './lib/stats.js';

const LISTENERS = 256;
const RATE = 1000;
const ROUNDS = 4;
const WARM_UP_SECONDS = 1;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
if (!(SECONDS > 0 && SECONDS <= 25)) throw new Error('BENCH_SECONDS must be in (0, 25] so the whole run stays under about a minute.');

type Mode = 'channel' | 'log' | 'baseline';
const MODES: readonly Mode[] = ['channel', 'log', 'baseline'];
const PUBLISH_ROUNDS = 6;
const PUBLISHES_PER_ROUND = 20_000;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

interface Setup {
  server: Child;
  listeners: Child;
  published: number;
  /** Publishing time plus the tail until the last frame arrived, summed over rounds (ms). */
  windowMs: number;
  /** Server CPU time while publishing, summed over rounds (ms). */
  cpuMs: number;
  publishMs: number;
}

interface Result {
  published: number;
  deliveries: number;
  expected: number;
  deliveredPerSecond: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** Fewest frames any one listener got (equals `published` when nothing was lost). */
  minPerListener: number;
  /** Server process CPU time per second of publishing (100 = one core busy). */
  serverCpuPercent: number;
  serverPeakRssMb: number;
}

async function setUp(mode: Mode): Promise<Setup> {
  const server = startChild(here('./lib/sse-broadcast-server.ts'), [mode]);
  const listeners = startChild(here('./lib/sse-listeners.ts'));
  const { url } = await server.next<{ type: 'ready'; url: string }>('ready');
  listeners.send({ type: 'connect', url, count: LISTENERS });
  await listeners.next('connected');
  return { server, listeners, published: 0, windowMs: 0, cpuMs: 0, publishMs: 0 };
}

/** Publishes for `seconds` and waits until every listener has caught up. */
async function publish(setup: Setup, seconds: number): Promise<void> {
  setup.server.send({ type: 'publish', rate: RATE, seconds });
  const done = await setup.server.next<{ type: 'published'; count: number; startedAt: number; endedAt: number; cpuMs: number }>(
    'published',
    (seconds + 30) * 1000,
  );
  setup.published += done.count;
  setup.cpuMs += done.cpuMs;
  setup.publishMs += done.endedAt - done.startedAt;
  setup.listeners.send({ type: 'wait', expected: setup.published * LISTENERS });
  const caughtUp = await setup.listeners.next<{ type: 'caught-up'; lastArrival: number }>('caught-up');
  setup.windowMs += Math.max(done.endedAt, caughtUp.lastArrival) - done.startedAt;
}

async function result(setup: Setup): Promise<Result> {
  setup.listeners.send({ type: 'report' });
  const report = await setup.listeners.next<ListenerReport>('report');
  setup.server.send({ type: 'stats' });
  const stats = await setup.server.next<{ type: 'stats'; maxRssKb: number }>('stats');
  return {
    published: setup.published,
    deliveries: report.deliveries,
    expected: setup.published * LISTENERS,
    deliveredPerSecond: report.deliveries / (setup.windowMs / 1000),
    lagP50Ms: report.lagP50,
    lagP99Ms: report.lagP99,
    lagMaxMs: report.lagMax,
    minPerListener: report.minPerListener,
    serverCpuPercent: (100 * setup.cpuMs) / setup.publishMs,
    serverPeakRssMb: stats.maxRssKb / 1024,
  };
}

/** Microseconds per publish (a phase event's fields, nobody listening) of each bus, rounds alternating. */
function publishCost(): { memoryUs: number; logUs: number; logRows: number } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-publish-'));
  const db = openDatabase(join(dir, 'studio.db'));
  try {
    const buses = { memory: new EventChannel(), log: studioEventChannel(new SqliteEventLog(db)) };
    const spent = { memory: 0, log: 0 };
    const fields = { requestId: 'bench-request-0001', kind: 'generate', phase: 'running', provider: 'api', model: 'lang-5.6-luna' };
    for (let pass = -1; pass < PUBLISH_ROUNDS; pass += 1) {
      const order = pass % 2 === 0 ? (['memory', 'log'] as const) : (['log', 'memory'] as const);
      for (const name of order) {
        const started = performance.now();
        for (let n = 0; n < PUBLISHES_PER_ROUND; n += 1) buses[name].publish('generation', 'phase', fields);
        // Pass -1 is the warm-up.
        if (pass >= 0) spent[name] += performance.now() - started;
      }
    }
    const total = PUBLISH_ROUNDS * PUBLISHES_PER_ROUND;
    const logRows = (db.prepare('SELECT count(*) FROM events').pluck().get() as number) ?? 0;
    return { memoryUs: (1000 * spent.memory) / total, logUs: (1000 * spent.log) / total, logRows };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const cost = publishCost();
console.log(
  table(
    ['publish cost (nobody listening)', 'µs/publish', 'ratio to memory'],
    [
      ['EventChannel, replay in memory', round(cost.memoryUs, 2), 1],
      ['studio bus, event log (SQLite)', round(cost.logUs, 2), round(cost.logUs / cost.memoryUs, 2)],
    ],
  ),
);
console.log(`(event log rows after ${(PUBLISH_ROUNDS + 1) * PUBLISHES_PER_ROUND} publishes: ${cost.logRows}, retention 1000)\n`);

console.error(`events bench: ${LISTENERS} listeners, ${RATE} events/s, ${SECONDS} s per server in ${ROUNDS} rounds`);
const setups = {} as Record<Mode, Setup>;
try {
  for (const mode of MODES) setups[mode] = await setUp(mode);
  for (const mode of MODES) {
    await publish(setups[mode], WARM_UP_SECONDS);
    setups[mode].listeners.send({ type: 'reset' });
    await setups[mode].listeners.next('reset');
    setups[mode].published = 0;
    setups[mode].windowMs = 0;
    setups[mode].cpuMs = 0;
    setups[mode].publishMs = 0;
  }
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex += 1) {
    const order = roundIndex % 2 === 0 ? MODES : [...MODES].reverse();
    for (const mode of order) await publish(setups[mode], SECONDS / ROUNDS);
  }
  const channel = await result(setups.channel);
  const log = await result(setups.log);
  const baseline = await result(setups.baseline);

  const ratiosOf = (measured: Result, to: Result) => ({
    throughput: measured.deliveredPerSecond / to.deliveredPerSecond,
    lagP50: measured.lagP50Ms / to.lagP50Ms,
    lagP99: measured.lagP99Ms / to.lagP99Ms,
    serverCpu: measured.serverCpuPercent / to.serverCpuPercent,
    peakRss: measured.serverPeakRssMb / to.serverPeakRssMb,
  });
  const ratios = ratiosOf(channel, baseline);
  const logRatios = ratiosOf(log, baseline);
  const logToChannel = ratiosOf(log, channel);
  const ratioRow = (name: string, measured: ReturnType<typeof ratiosOf>) => [
    name,
    '',
    '',
    round(measured.throughput, 3),
    round(measured.lagP50, 2),
    round(measured.lagP99, 2),
    '',
    round(measured.serverCpu, 2),
    round(measured.peakRss, 2),
  ];
  const row = (name: string, measured: Result) => [
    name,
    measured.published,
    `${measured.deliveries}/${measured.expected}`,
    Math.round(measured.deliveredPerSecond),
    round(measured.lagP50Ms, 3),
    round(measured.lagP99Ms, 3),
    round(measured.lagMaxMs, 1),
    round(measured.serverCpuPercent, 1),
    round(measured.serverPeakRssMb, 1),
  ];
  console.log(
    table(
      ['server', 'published', 'delivered/expected', 'delivered/s', 'lag p50 ms', 'lag p99 ms', 'lag max ms', 'server CPU %', 'peak RSS MB'],
      [
        row('EventChannel (Fastify)', channel),
        row('studio bus, event log', log),
        row('bare node:http', baseline),
        ratioRow('ratio channel/baseline', ratios),
        ratioRow('ratio log/baseline', logRatios),
        ratioRow('ratio log/channel', logToChannel),
      ],
    ),
  );
  console.log(
    JSON.stringify({
      bench: 'events',
      listeners: LISTENERS,
      rate: RATE,
      seconds: SECONDS,
      publishCost: { memoryUs: round(cost.memoryUs, 3), logUs: round(cost.logUs, 3), ratio: round(cost.logUs / cost.memoryUs, 2) },
      channel,
      log,
      baseline,
      ratios: Object.fromEntries(Object.entries(ratios).map(([key, value]) => [key, round(value, 3)])),
      logRatios: Object.fromEntries(Object.entries(logRatios).map(([key, value]) => [key, round(value, 3)])),
      logToChannel: Object.fromEntries(Object.entries(logToChannel).map(([key, value]) => [key, round(value, 3)])),
    }),
  );
} finally {
  await Promise.all(Object.values(setups).flatMap((setup) => [setup.listeners.stop(), setup.server.stop()]));
}
