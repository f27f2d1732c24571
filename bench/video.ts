// Video: a 3 s 480p text-to-video over real HTTP to a studio in this process,
// against the alpha simulator (also in this process, real MP4s via ffmpeg).
//
// 1. The studio's added time: POST /api/video/generate (sync) end to end,
//    against the simulator's own job time measured in the same run by a bare
//    client (create, poll every 20 ms, download) — the baseline. p50 of 3.
//    The studio polls every SVC_VIDEO_POLL_MS (100 ms here; the default
//    cadence is 1 s, 2 s, 3 s, then 5 s), plans the prompt, and saves
//    (probe, metadata, poster, atomic write).
// 2. Poster and frame extraction per video (ffprobe + one ffmpeg each, child
//    processes): p50 of 5 on the saved clip.
// 3. The event loop while four videos are made, downloaded, probed and saved
//    at once: its delay p99 against the same measure idle.
//
// Run: node --import tsx bench/video.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startAlphaSimulator } from '../src/sim/alpha/index.js';
import { startStudio } from '../src/studio/main.js';
import { extractFrame, probeVideo } from '../src/studio/media/video/index.js';
import { percentile, round, table } from './lib/stats.js';

const RUNS = 3;
const VIDEO_MS = 1000;
const IDLE_MS = 2000;
const body = { provider: 'alpha-api', prompt: 'waves at dusk', duration: 3, resolution: '480p', aspectRatio: '16:9' };

const home = mkdtempSync(join(tmpdir(), 'svc-bench-video-'));
const sim = await startAlphaSimulator({ videoMs: VIDEO_MS });
const studio = await startStudio({
  env: { SVC_HOME: home, PATH: process.env.PATH, ALPHA_API_KEY: sim.apiKey, SVC_VIDEO_POLL_MS: '100' },
  upstreams: { alpha: sim.apiBaseUrl, 'alpha-api': sim.apiBaseUrl, 'alpha.issuer': sim.issuerUrl, 'alpha.billing': sim.billingUrl },
  port: 0,
  descriptor: false,
});
const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const auth = { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json' };

/** The simulator's own job, by a bare client: create, poll every 20 ms, download. */
async function simulatorJob(): Promise<number> {
  const started = performance.now();
  const created = (await (
    await fetch(`${sim.apiBaseUrl}/videos/generations`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ model: 'alpha-video', prompt: body.prompt, duration: 3, resolution: '480p', aspect_ratio: '16:9' }),
    })
  ).json()) as { request_id: string };
  for (;;) {
    const poll = await fetch(`${sim.apiBaseUrl}/videos/${created.request_id}`, { headers: auth });
    if (poll.status === 200) {
      const done = (await poll.json()) as { video: { url: string } };
      await (await fetch(done.video.url)).arrayBuffer();
      return performance.now() - started;
    }
    await poll.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function studioJob(prompt = body.prompt): Promise<{ ms: number; url: string; timings: { upstreamMs: number; saveMs: number } }> {
  const started = performance.now();
  const response = await fetch(`${studio.url}/api/video/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, prompt }),
  });
  const result = (await response.json()) as { video: { url: string }; timings: { upstreamMs: number; saveMs: number } };
  if (response.status !== 200) throw new Error(`video answered ${response.status}: ${JSON.stringify(result)}`);
  return { ms: performance.now() - started, url: result.video.url, timings: result.timings };
}

async function loopDelay(during?: () => Promise<unknown>): Promise<{ p99: number; max: number }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await (during ? during() : new Promise((resolve) => setTimeout(resolve, IDLE_MS)));
  loop.disable();
  return { p99: round(loop.percentile(99) / 1e6), max: round(loop.max / 1e6) };
}

try {
  await simulatorJob();
  await studioJob();
  const baseline: number[] = [];
  const studioMs: number[] = [];
  const saveMs: number[] = [];
  let saved = '';
  for (let run = 0; run < RUNS; run += 1) {
    baseline.push(await simulatorJob());
    const job = await studioJob(`${body.prompt} ${run}`);
    studioMs.push(job.ms);
    saveMs.push(job.timings.saveMs);
    saved = job.url;
  }
  const added = {
    simulatorMs: round(median(baseline)),
    studioMs: round(median(studioMs)),
    addedMs: round(median(studioMs) - median(baseline)),
    ratio: round(median(studioMs) / median(baseline)),
    saveMs: round(median(saveMs)),
  };

  const file = join(home, 'bench.mp4');
  writeFileSync(file, Buffer.from(await (await fetch(`${studio.url}${saved}`)).arrayBuffer()));
  const extraction: Record<string, number> = {};
  for (const [name, position] of [
    ['poster (1 s)', 1],
    ['first', 'first'],
    ['last', 'last'],
  ] as const) {
    const times: number[] = [];
    for (let run = 0; run < 5; run += 1) {
      const started = performance.now();
      const facts = await probeVideo(file);
      await extractFrame(file, home, position, facts.durationSeconds);
      times.push(performance.now() - started);
    }
    extraction[name] = round(median(times));
  }

  const idle = await loopDelay();
  const busy = await loopDelay(() => Promise.all([0, 1, 2, 3].map((index) => studioJob(`four at once ${index}`))));

  console.log(
    `video: a 3 s 480p text-to-video; the simulator's job runs ${VIDEO_MS} ms or its render, whichever is longer; p50 of ${RUNS}`,
  );
  console.log(
    table(
      ['simulator job ms (baseline)', 'studio request ms', 'added ms', 'ratio', 'of which saving ms'],
      [[added.simulatorMs, added.studioMs, added.addedMs, added.ratio, added.saveMs]],
    ),
  );
  console.log('probe + one frame per video (ms, p50 of 5):');
  console.log(table(Object.keys(extraction), [Object.values(extraction)]));
  console.log('the event loop, idle (baseline) and while 4 videos are made, downloaded, probed and saved:');
  console.log(
    table(
      ['period', 'loop delay p99 ms', 'loop delay max ms'],
      [
        ['idle', idle.p99, idle.max],
        ['4 videos', busy.p99, busy.max],
        ['ratio', round(busy.p99 / idle.p99), round(busy.max / idle.max)],
      ],
    ),
  );
  console.log(JSON.stringify({ bench: 'video', added, extraction, loop: { idle, busy } }));
} finally {
  await studio.close();
  await sim.close();
  rmSync(home, { recursive: true, force: true });
}
