// Many generations at once: N concurrent `POST /api/generate` on the `api`
// lane through the studio, against the same N upstream calls made directly
// to the simulator and through the floor gateway (lib/floor-child.ts: the
// hop and one durable write, nothing else), in the same run. The direct calls
// are made by two clients: `sse` parses the stream event by event as it
// arrives (lib/direct-call.ts callDirect), `text` is the common client, a
// plain fetch reading the whole stream as text and splitting its events
// (callDirectText). Bursts rotate (studio, both direct clients, floor; each
// goes first, second, third and last in turn).
//
// For each N (1, 8, 32, 64) and each scenario it reports, against each direct
// client, the throughput ratio (direct burst time / studio burst time) and p50
// and p99 of the requests; the floor against the `sse` client; the studio's peak RSS in its bursts
// (VmHWM, reset before each), and how long after a burst's last answer its
// last thumbnail is served. Scenarios:
//   demo      the demo's simulator: 1024², 1,200 ms of generation time (the Bar's)
//   cpu       1024², no generation time: every process competes for the 2 cores
//   large     2048², the demo's generation time
// Then memory over a long run: 2,000 generations in bursts of 32 on the
// `cpu` scenario, RSS idle before, the largest burst's peak, and settled RSS
// after the largest burst and after the 2,000.
//
// Run: node --import tsx bench/load.ts   (BENCH_LOAD_N=1,8,32,64  BENCH_LOAD_ROUNDS=4
//      BENCH_LOAD_SCENARIOS=demo,cpu,large  BENCH_LOAD_LONG=2000; 0 skips the long run)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startChild, type Child } from './lib/child.js';
import { callDirect, callDirectText } from './lib/direct-call.js';
import { percentile, round, table } from './lib/stats.js';

const here = import.meta.dirname;
const NS = (process.env.BENCH_LOAD_N ?? '1,8,32,64').split(',').map(Number);
const ROUNDS = Math.max(1, Number(process.env.BENCH_LOAD_ROUNDS ?? 4));
const LONG_RUN = Number(process.env.BENCH_LOAD_LONG ?? 2000);
const DEMO_LATENCY_MS = 1200;
const SCENARIOS = [
  { name: 'demo', size: '1024x1024', latencyMs: DEMO_LATENCY_MS },
  { name: 'cpu', size: '1024x1024', latencyMs: 0 },
  { name: 'large', size: '2048x2048', latencyMs: DEMO_LATENCY_MS },
].filter((scenario) => (process.env.BENCH_LOAD_SCENARIOS ?? 'demo,cpu,large').split(',').includes(scenario.name));
const PROMPT = 'a red kite over a green hill';
/** Idle time before a settled RSS is read: V8 gives memory back in an idle spell (its memory reducer), not at once. */
const SETTLE_MS = 12_000;

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const q = (values: number[], p: number) => percentile(sorted(values), p);
const mib = (kib: number) => round(kib / 1024, 1);

/** A process's resident memory in KiB: now (VmRSS) or its peak since the last reset (VmHWM). */
function memoryKiB(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? Number.NaN);
}
/** Resets the peak (VmHWM) to the current RSS (Linux: clear_refs 5). */
const resetPeak = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until the studio's media pool has no thumbnail running or queued; how long that took. */
async function drained(studioUrl: string): Promise<number> {
  const started = performance.now();
  for (;;) {
    const { mediaPool } = (await (await fetch(`${studioUrl}/api/storage/status`)).json()) as {
      mediaPool: { running: number; queued: number };
    };
    if (mediaPool.running === 0 && mediaPool.queued === 0) return performance.now() - started;
    await sleep(100);
  }
}

interface Rig {
  sim: Child;
  studio: Child;
  floor: Child;
  studioUrl: string;
  floorUrl: string;
  apiBaseUrl: string;
  apiKey: string;
  template: { input: Array<{ content: Array<{ text: string }> }> };
}

async function startRig(scenario: (typeof SCENARIOS)[number]): Promise<Rig> {
  const sim = startChild(join(here, 'lib/responses-sim-child.ts'), [JSON.stringify({ generationDelayMs: scenario.latencyMs })]);
  const { url: simUrl, apiBaseUrl, apiKey } = await sim.next<{ type: 'ready'; url: string; apiBaseUrl: string; apiKey: string }>('ready');
  // --expose-gc: the long run reads memory after full collections too (retained, not yet-collected garbage).
  const studio = startChild(
    join(here, 'lib/studio-child.ts'),
    [JSON.stringify({ apiBaseUrl, apiKey, env: process.env.BENCH_STUDIO_ENV ? JSON.parse(process.env.BENCH_STUDIO_ENV) : {} })],
    { execArgv: ['--expose-gc'] },
  );
  const { url: studioUrl } = await studio.next<{ type: 'ready'; url: string }>('ready');
  const floor = startChild(join(here, 'lib/floor-child.ts'), [JSON.stringify({ apiBaseUrl, apiKey })]);
  const { url: floorUrl } = await floor.next<{ type: 'ready'; url: string }>('ready');
  const rig = { sim, studio, floor, studioUrl, floorUrl, apiBaseUrl, apiKey, template: undefined as unknown as Rig['template'] };
  // The exact body the studio sends upstream (from the simulator's log): what direct and the floor send.
  await viaStudio(rig, scenario.size);
  const logged = (await (await fetch(`${simUrl}/__sim/requests?route=${encodeURIComponent('POST /v1/responses')}&full=1`)).json()) as {
    requests: Array<{ body: Rig['template'] }>;
  };
  rig.template = logged.requests.at(-1)?.body as Rig['template'];
  if (!rig.template) throw new Error('no upstream request logged');
  return rig;
}

async function stopRig(rig: Rig): Promise<void> {
  await Promise.all([rig.studio.stop(), rig.floor.stop(), rig.sim.stop()]);
}

interface Answer {
  ms: number;
  /** When the answer was complete (performance.now()). */
  at: number;
  thumbnailUrl?: string;
}

async function viaStudio(rig: Pick<Rig, 'studioUrl'>, size: string): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${rig.studioUrl}/api/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: PROMPT, provider: 'api', size, format: 'png' }),
  });
  const result = (await response.json()) as { images?: Array<{ thumbnailUrl: string }> };
  const at = performance.now();
  if (response.status !== 200 || !result.images)
    throw new Error(`studio answered ${response.status}: ${JSON.stringify(result).slice(0, 300)}`);
  return { ms: at - started, at, thumbnailUrl: result.images[0].thumbnailUrl };
}

/** The direct clients, by name. */
const CLIENTS = { sse: callDirect, text: callDirectText } as const;
type ClientName = keyof typeof CLIENTS;

async function direct(rig: Rig, client: ClientName = 'sse'): Promise<Answer> {
  const started = performance.now();
  await CLIENTS[client](rig.apiBaseUrl, rig.apiKey, rig.template);
  const at = performance.now();
  return { ms: at - started, at };
}

async function viaFloor(rig: Rig): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(rig.floorUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(rig.template),
  });
  await response.json();
  const at = performance.now();
  return { ms: at - started, at };
}

interface Burst {
  wallMs: number;
  latencies: number[];
  peakKiB?: number;
  thumbnailsAfterMs?: number;
}

async function burst(n: number, call: () => Promise<Answer>, options: { pid?: number; thumbnails?: string } = {}): Promise<Burst> {
  if (options.pid) resetPeak(options.pid);
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: n }, call));
  const wallMs = performance.now() - started;
  const peakKiB = options.pid ? memoryKiB(options.pid, 'VmHWM') : undefined;
  let thumbnailsAfterMs: number | undefined;
  if (options.thumbnails) {
    // Asked the moment the last answer is in; the route waits for a thumbnail still being made.
    const lastAnswer = Math.max(...answers.map((answer) => answer.at));
    const served = await Promise.all(
      answers.map(async (answer) => {
        const response = await fetch(`${options.thumbnails}${answer.thumbnailUrl}`);
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`thumbnail answered ${response.status}`);
        return performance.now();
      }),
    );
    thumbnailsAfterMs = Math.max(...served) - lastAnswer;
  }
  return { wallMs, latencies: answers.map((answer) => answer.ms), peakKiB, thumbnailsAfterMs };
}

/** The studio's memory once it is idle: thumbnails done, an idle spell, then again after full collections. */
async function settled(
  rig: Rig,
  pid: number,
): Promise<{ rssMiB: number; afterGcMiB: number; anonMiB: number; heapUsedMiB: number; heapTotalMiB: number; arrayBuffersMiB: number }> {
  await drained(rig.studioUrl);
  await sleep(SETTLE_MS);
  const rss = memoryKiB(pid, 'VmRSS');
  rig.studio.send({ type: 'memory', gc: true });
  const { usage } = await rig.studio.next<{ type: 'memory'; usage: NodeJS.MemoryUsage }>('memory');
  return {
    rssMiB: mib(rss),
    afterGcMiB: mib(memoryKiB(pid, 'VmRSS')),
    anonMiB: mib(memoryKiB(pid, 'RssAnon')),
    heapUsedMiB: mib(usage.heapUsed / 1024),
    heapTotalMiB: mib(usage.heapTotal / 1024),
    arrayBuffersMiB: mib(usage.arrayBuffers / 1024),
  };
}

/**
 * Memory over a long run: the largest burst once (its peak is what the process may keep), then
 * LONG_RUN generations in bursts of 32; the settled memory after them against that peak.
 */
async function longRun(rig: Rig, size: string, pid: number): Promise<Record<string, unknown>> {
  const idle = await settled(rig, pid);
  const largest = Math.max(...NS);
  resetPeak(pid);
  await burst(largest, () => viaStudio(rig, size));
  const peakMiB = mib(memoryKiB(pid, 'VmHWM'));
  const afterBurst = await settled(rig, pid);
  const started = performance.now();
  for (let done = 0; done < LONG_RUN; done += 32) await burst(Math.min(32, LONG_RUN - done), () => viaStudio(rig, size));
  const seconds = round((performance.now() - started) / 1000, 1);
  const backlogStarted = performance.now();
  await drained(rig.studioUrl);
  const thumbnailBacklogSeconds = round((performance.now() - backlogStarted) / 1000, 1);
  const after = await settled(rig, pid);
  const long = {
    generations: LONG_RUN,
    seconds,
    thumbnailBacklogSeconds,
    idle,
    largestBurst: { n: largest, peakMiB, settled: afterBurst },
    after,
    settledOverPeak: round(after.rssMiB / peakMiB, 3),
    afterGcOverPeak: round(after.afterGcMiB / peakMiB, 3),
  };
  console.log(
    `\nload/long: ${LONG_RUN} generations in bursts of 32 in ${seconds} s (thumbnails done ${thumbnailBacklogSeconds} s later); studio RSS MiB:`,
  );
  console.log(
    table(
      ['when', 'RSS settled', 'RSS after GC', 'of it anonymous', 'heap used', 'heap total', 'array buffers'],
      [
        ['idle', idle.rssMiB, idle.afterGcMiB, idle.anonMiB, idle.heapUsedMiB, idle.heapTotalMiB, idle.arrayBuffersMiB],
        [
          `burst of ${largest} (peak ${peakMiB})`,
          afterBurst.rssMiB,
          afterBurst.afterGcMiB,
          afterBurst.anonMiB,
          afterBurst.heapUsedMiB,
          afterBurst.heapTotalMiB,
          afterBurst.arrayBuffersMiB,
        ],
        [`after ${LONG_RUN}`, after.rssMiB, after.afterGcMiB, after.anonMiB, after.heapUsedMiB, after.heapTotalMiB, after.arrayBuffersMiB],
      ],
    ),
  );
  console.log(`after ${LONG_RUN} / the largest burst's peak: ${long.settledOverPeak} settled, ${long.afterGcOverPeak} after GC`);
  return long;
}

const SUBJECTS = ['studio', 'direct sse', 'direct text', 'floor'] as const;
/** Round r starts at subject r: each goes first, second, third and last in turn. */
const rotation = (round_: number) => SUBJECTS.map((_, index) => SUBJECTS[(round_ + index) % SUBJECTS.length]);

const report: Record<string, unknown> = {};
for (const scenario of SCENARIOS) {
  const rig = await startRig(scenario);
  const studioPid = rig.studio.process.pid as number;
  const floorPid = rig.floor.process.pid as number;
  // Warm-up: every path, a burst of 8, twice.
  for (let index = 0; index < 2; index += 1) {
    await burst(8, () => viaStudio(rig, scenario.size));
    for (const client of Object.keys(CLIENTS) as ClientName[]) await burst(8, () => direct(rig, client));
    await burst(8, () => viaFloor(rig));
  }
  const rows: Array<Array<string | number>> = [];
  const figures: Record<string, unknown> = {};
  for (const n of NS) {
    const runs: Record<(typeof SUBJECTS)[number], Burst[]> = { studio: [], 'direct sse': [], 'direct text': [], floor: [] };
    for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
      for (const who of rotation(round_)) {
        if (who === 'studio')
          runs.studio.push(await burst(n, () => viaStudio(rig, scenario.size), { pid: studioPid, thumbnails: rig.studioUrl }));
        else if (who === 'floor') runs.floor.push(await burst(n, () => viaFloor(rig), { pid: floorPid }));
        else runs[who].push(await burst(n, () => direct(rig, who === 'direct sse' ? 'sse' : 'text')));
      }
    }
    const wall = (bursts: Burst[]) => bursts.reduce((sum, entry) => sum + entry.wallMs, 0);
    const all = (bursts: Burst[]) => bursts.flatMap((entry) => entry.latencies);
    /** Throughput, p50 and p99 of `bursts` against a direct client's. */
    const against = (bursts: Burst[], client: ClientName) => {
      const latencies = all(bursts);
      const directLat = all(runs[`direct ${client}`]);
      return {
        throughput: round(wall(runs[`direct ${client}`]) / wall(bursts), 3),
        p50: round(q(latencies, 0.5) / q(directLat, 0.5), 3),
        p99: round(q(latencies, 0.99) / q(directLat, 0.99), 3),
      };
    };
    const studioLat = all(runs.studio);
    const sse = against(runs.studio, 'sse');
    const text = against(runs.studio, 'text');
    const floor = against(runs.floor, 'sse');
    const entry = {
      ...sse,
      text,
      floorThroughput: floor.throughput,
      floorP50: floor.p50,
      floorP99: floor.p99,
      directMs: Object.fromEntries(
        (Object.keys(CLIENTS) as ClientName[]).map((client) => {
          const latencies = all(runs[`direct ${client}`]);
          return [client, { p50: round(q(latencies, 0.5)), p99: round(q(latencies, 0.99)) }];
        }),
      ),
      studioMs: { p50: round(q(studioLat, 0.5)), p99: round(q(studioLat, 0.99)) },
      studioPeakMiB: mib(Math.max(...runs.studio.map((entry_) => entry_.peakKiB ?? 0))),
      floorPeakMiB: mib(Math.max(...runs.floor.map((entry_) => entry_.peakKiB ?? 0))),
      thumbnailsAfterMs: round(Math.max(...runs.studio.map((entry_) => entry_.thumbnailsAfterMs ?? 0))),
    };
    figures[`n${n}`] = entry;
    rows.push([
      n,
      sse.throughput,
      sse.p50,
      sse.p99,
      text.throughput,
      text.p50,
      text.p99,
      floor.throughput,
      floor.p99,
      entry.studioMs.p50,
      entry.studioPeakMiB,
      entry.floorPeakMiB,
      entry.thumbnailsAfterMs,
    ]);
  }
  console.log(
    `\nload/${scenario.name}: ${scenario.size}, simulated generation ${scenario.latencyMs} ms, ${ROUNDS} rounds of each burst; ratios against direct (sse client, text client)`,
  );
  console.log(
    table(
      [
        'N',
        'thr vs sse',
        'p50',
        'p99',
        'thr vs text',
        'p50',
        'p99',
        'floor thr',
        'p99',
        'studio p50 ms',
        'studio peak MiB',
        'floor peak MiB',
        'thumbs after ms',
      ],
      rows,
    ),
  );
  report[scenario.name] = figures;

  if (scenario.name === 'cpu' && LONG_RUN > 0) report.long = await longRun(rig, scenario.size, studioPid);
  await stopRig(rig);
}
console.log(JSON.stringify({ bench: 'load', rounds: ROUNDS, ...report }));
