// Event channel benchmark: 256 SSE listeners, 1,000 events/s, each event
// carrying its publish time. Two servers in the same run: the EventChannel on
// the product's Fastify app, and a bare node:http broadcast (the same frame
// bytes, one res.write per listener). Each server and each group of 256
// listeners is its own process. The BENCH_SECONDS (default 10) of publishing
// per server are split into rounds in the order A B B A ..., after a warm-up,
// so background load on the machine hits both alike.
//
//   node --import tsx bench/events.ts            BENCH_SECONDS=4 for a quick look
import { fileURLToPath } from 'node:url';
import { startChild, type Child } from './lib/child.js';
import type { ListenerReport } from './lib/sse-listeners.js';
import { round, table } from './lib/stats.js';

const LISTENERS = 256;
const RATE = 1000;
const ROUNDS = 4;
const WARM_UP_SECONDS = 1;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
if (!(SECONDS > 0 && SECONDS <= 25)) throw new Error('BENCH_SECONDS must be in (0, 25] so the whole run stays under about a minute.');

type Mode = 'channel' | 'baseline';
const MODES: readonly Mode[] = ['channel', 'baseline'];
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
  const baseline = await result(setups.baseline);

  const ratios = {
    throughput: channel.deliveredPerSecond / baseline.deliveredPerSecond,
    lagP50: channel.lagP50Ms / baseline.lagP50Ms,
    lagP99: channel.lagP99Ms / baseline.lagP99Ms,
    serverCpu: channel.serverCpuPercent / baseline.serverCpuPercent,
    peakRss: channel.serverPeakRssMb / baseline.serverPeakRssMb,
  };
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
        row('bare node:http', baseline),
        [
          'ratio channel/baseline',
          '',
          '',
          round(ratios.throughput, 3),
          round(ratios.lagP50, 2),
          round(ratios.lagP99, 2),
          '',
          round(ratios.serverCpu, 2),
          round(ratios.peakRss, 2),
        ],
      ],
    ),
  );
  console.log(
    JSON.stringify({
      bench: 'events',
      listeners: LISTENERS,
      rate: RATE,
      seconds: SECONDS,
      channel,
      baseline,
      ratios: Object.fromEntries(Object.entries(ratios).map(([key, value]) => [key, round(value, 3)])),
    }),
  );
} finally {
  await Promise.all(Object.values(setups).flatMap((setup) => [setup.listeners.stop(), setup.server.stop()]));
}
