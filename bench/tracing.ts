// Vector tracing: POST /api/assets/derived?kind=vector-svg on a 1024×1024
// image rendered as the simulators render a generation, over real HTTP to a
// studio in this process.
//
// 1. Per preset: the tracer's own time (settings.tracerMs) and the whole
//    request, per megapixel, p50 of 5 runs after a warm-up; the SVG's size and
//    path count.
// 2. The event loop while four traces run at once (the pool runs two, two
//    wait): its delay p99 (perf_hooks.monitorEventLoopDelay) and a GET
//    /api/health probe every 10 ms, against the same measures taken idle in
//    the same run (the baseline).
//
// Targets: ≤ 200 ms per megapixel; loop delay p99 < 20 ms while tracing.
// Run: node --import tsx bench/tracing.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { renderImage } from '../src/sim/image-renderer.js';
import { saveAsset } from '../src/studio/assets.js';
import { startStudio } from '../src/studio/main.js';
import { TRACE_PRESET_NAMES } from '../src/studio/vector/presets.js';
import { percentile, round, table } from './lib/stats.js';

const RUNS = 5;
const SIDE = 1024;
const MEGAPIXELS = (SIDE * SIDE) / 1e6;
const IDLE_MS = 3000;

const home = mkdtempSync(join(tmpdir(), 'svc-bench-trace-'));
const studio = await startStudio({ env: { SVC_HOME: home, PATH: process.env.PATH }, port: 0, descriptor: false });

interface Traced {
  filename: string;
  bytes: number;
  settings: { tracerMs: number; pathCount: number };
}

async function trace(source: string, preset: string): Promise<{ ms: number; record: Traced }> {
  const started = performance.now();
  const response = await fetch(`${studio.url}/api/assets/derived?kind=vector-svg&source=${encodeURIComponent(source)}&preset=${preset}`, {
    method: 'POST',
  });
  const record = (await response.json()) as Traced;
  if (response.status !== 201) throw new Error(`trace answered ${response.status}: ${JSON.stringify(record)}`);
  return { ms: performance.now() - started, record };
}

const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

try {
  const image = await renderImage({ prompt: 'a lighthouse on a cliff at dusk, waves, gulls', width: SIDE, height: SIDE, format: 'png' });
  const source = (
    await saveAsset(studio.ctx, {
      bytes: image,
      metadata: { prompt: 'bench source', lane: 'api', model: 'bench', requestId: 'bench-trace', kind: 'generate', settings: {} },
    })
  ).filename;
  await studio.ctx.derived.idle();

  const presets: (string | number)[][] = [];
  const perPreset: Record<string, unknown> = {};
  for (const preset of TRACE_PRESET_NAMES) {
    await trace(source, preset);
    const tracer: number[] = [];
    const total: number[] = [];
    let last: Traced | undefined;
    for (let run = 0; run < RUNS; run += 1) {
      const { ms, record } = await trace(source, preset);
      tracer.push(record.settings.tracerMs);
      total.push(ms);
      last = record;
    }
    const figures = {
      tracerMsPerMp: round(median(tracer) / MEGAPIXELS),
      requestMsPerMp: round(median(total) / MEGAPIXELS),
      svgKiB: round((last?.bytes ?? 0) / 1024),
      paths: last?.settings.pathCount ?? 0,
    };
    perPreset[preset] = figures;
    presets.push([preset, figures.tracerMsPerMp, figures.requestMsPerMp, figures.svgKiB, figures.paths]);
  }

  /** Loop delay and health-probe latency over a period, while `during` runs (or for IDLE_MS). */
  async function watch(
    during?: () => Promise<unknown>,
  ): Promise<{ loopP99: number; loopMax: number; probeP50: number; probeP99: number; probes: number }> {
    const loop = monitorEventLoopDelay({ resolution: 1 });
    const probes: number[] = [];
    let done = false;
    const work = (during ? during() : new Promise((resolve) => setTimeout(resolve, IDLE_MS))).finally(() => (done = true));
    loop.enable();
    while (!done) {
      const started = performance.now();
      await (await fetch(`${studio.url}/api/health`)).arrayBuffer();
      probes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    loop.disable();
    await work;
    probes.sort((a, b) => a - b);
    return {
      loopP99: round(loop.percentile(99) / 1e6),
      loopMax: round(loop.max / 1e6),
      probeP50: round(percentile(probes, 0.5)),
      probeP99: round(percentile(probes, 0.99)),
      probes: probes.length,
    };
  }

  const idle = await watch();
  const busy = await watch(() => Promise.all([0, 1, 2, 3].map(() => trace(source, 'general'))));

  console.log(`tracing: a ${SIDE}x${SIDE} rendered PNG (${MEGAPIXELS.toFixed(2)} MP), p50 of ${RUNS} runs per preset`);
  console.log(table(['preset', 'tracer ms/MP', 'request ms/MP', 'SVG KiB', 'paths'], presets));
  console.log('the event loop, idle (baseline) and while 4 traces run:');
  console.log(
    table(
      ['period', 'loop delay p99 ms', 'loop delay max ms', 'health p50 ms', 'health p99 ms', 'probes'],
      [
        ['idle', idle.loopP99, idle.loopMax, idle.probeP50, idle.probeP99, idle.probes],
        ['4 traces', busy.loopP99, busy.loopMax, busy.probeP50, busy.probeP99, busy.probes],
        [
          'ratio',
          round(busy.loopP99 / idle.loopP99),
          round(busy.loopMax / idle.loopMax),
          round(busy.probeP50 / idle.probeP50),
          round(busy.probeP99 / idle.probeP99),
          '',
        ],
      ],
    ),
  );
  console.log(JSON.stringify({ bench: 'tracing', megapixels: MEGAPIXELS, presets: perPreset, loop: { idle, busy } }));
} finally {
  await studio.close();
  rmSync(home, { recursive: true, force: true });
}
