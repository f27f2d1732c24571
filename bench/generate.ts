// POST /api/generate on the `api` lane versus the same upstream request made
// directly to the simulator, in the same run: warm-up, then interleaved rounds
// (studio, direct, floor gateway; each goes first, second and last in turn).
// The simulator, the studio and the floor each run in their own process; this
// process is only the client.
//
// Reports the overhead the studio adds (pairwise studio − direct, p50/p99, and
// the ratio of medians), the same for a floor gateway (lib/floor-child.ts: the
// least any gateway does for one image, one durable write included, so its
// overhead is what this machine charges for the hop and the write whoever
// makes them; its upstream call made with fetch, as the direct one is) and for
// the same floor reading the upstream over node:http as the studio does (so
// the studio's bookkeeping shows apart from its cheaper transport), the
// studio's own timings from the result
// (upstream call vs saveAsset), and a breakdown of saveAsset's steps measured
// here on the same image bytes (decode probe, metadata embed, thumbnail, file write).
//
// With BENCH_BASELINE_TREE=<another checkout> (its node_modules installed or linked), a
// studio built from that tree runs too, interleaved in the same rounds, and the report
// gives this tree's added overhead against the baseline's (before/after a change).
//
// With BENCH_THREADS=1 (Linux), each measured studio request is also accounted per thread of
// the studio's process (lib/threads.ts): CPU time and context switches a request, outside the timings.
//
// Run: node --import tsx bench/generate.ts   (BENCH_ITERATIONS, default 200; stops early after ~45 s)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { DurableWriter } from '../src/common/durable-writer.js';
import { embedMetadata } from '../src/studio/media/metadata.js';
import { makeThumbnail } from '../src/studio/media/thumbnail.js';
import { startChild } from './lib/child.js';
import { callDirect } from './lib/direct-call.js';
import { percentile, round, table } from './lib/stats.js';
import { ThreadAccount } from './lib/threads.js';

const ITERATIONS = Math.max(1, Number(process.env.BENCH_ITERATIONS ?? 200));
const WARMUP = 4;
const MEASURE_BUDGET_MS = 45_000;
const COMPONENT_ROUNDS = 20;
const here = import.meta.dirname;

interface StudioResult {
  images: Array<{ bytes: number; width: number; height: number; format: string; thumbnailUrl: string }>;
  timings: { upstreamMs: number; saveMs: number; totalMs: number };
}

const sim = startChild(join(here, 'lib/responses-sim-child.ts'));
const { url: simUrl, apiBaseUrl, apiKey } = await sim.next<{ type: 'ready'; url: string; apiBaseUrl: string; apiKey: string }>('ready');
const studio = startChild(join(here, 'lib/studio-child.ts'), [JSON.stringify({ apiBaseUrl, apiKey })]);
const { url: studioUrl } = await studio.next<{ type: 'ready'; url: string }>('ready');
const baselineTree = process.env.BENCH_BASELINE_TREE;
const baseline = baselineTree
  ? startChild(join(baselineTree, 'bench/lib/studio-child.ts'), [JSON.stringify({ apiBaseUrl, apiKey })])
  : undefined;
const baselineUrl = baseline ? (await baseline.next<{ type: 'ready'; url: string }>('ready')).url : undefined;

let threads: ThreadAccount | undefined;

async function viaStudio(prompt: string, url = studioUrl): Promise<{ ms: number; result: StudioResult }> {
  const threadsBefore = url === studioUrl ? threads?.start() : undefined;
  const started = performance.now();
  const response = await fetch(`${url}/api/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt, provider: 'api', size: '1024x1024', format: 'png' }),
  });
  const result = (await response.json()) as StudioResult;
  const ms = performance.now() - started;
  if (threadsBefore) threads?.end(threadsBefore);
  if (response.status !== 200) throw new Error(`studio answered ${response.status}: ${JSON.stringify(result)}`);
  // Untimed: the thumbnail follows the answer (derived work, libvips on every core for some 7 ms).
  // Waiting for it here keeps it from slowing whichever call comes next, so no position in the
  // rotation pays for another call's derived work.
  const thumbnail = await fetch(`${url}${result.images[0].thumbnailUrl}`);
  if (thumbnail.status !== 200) throw new Error(`thumbnail answered ${thumbnail.status}`);
  await thumbnail.arrayBuffer();
  return { ms, result };
}

// The exact body the studio sent upstream (read back from the simulator's log), with the prompt swapped per call.
await viaStudio('bench template');
const logged = (await (await fetch(`${simUrl}/__sim/requests?route=${encodeURIComponent('POST /v1/responses')}&full=1`)).json()) as {
  requests: Array<{ body: Record<string, unknown> }>;
};
const template = logged.requests.at(-1)?.body as { input: Array<{ content: Array<{ text: string }> }> };
if (!template) throw new Error('no upstream request logged');

const floor = startChild(join(here, 'lib/floor-child.ts'), [JSON.stringify({ apiBaseUrl, apiKey })]);
const { url: floorUrl } = await floor.next<{ type: 'ready'; url: string }>('ready');
const httpFloor = startChild(join(here, 'lib/floor-child.ts'), [JSON.stringify({ apiBaseUrl, apiKey, transport: 'http' })]);
const { url: httpFloorUrl } = await httpFloor.next<{ type: 'ready'; url: string }>('ready');
async function viaFloor(prompt: string, url = floorUrl): Promise<number> {
  const body = structuredClone(template);
  body.input[0].content[0].text = prompt;
  const started = performance.now();
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await response.json();
  return performance.now() - started;
}

async function direct(prompt: string): Promise<{ ms: number; image: Buffer }> {
  const body = structuredClone(template);
  body.input[0].content[0].text = prompt;
  const started = performance.now();
  const image = await callDirect(apiBaseUrl, apiKey, body);
  const ms = performance.now() - started;
  return { ms, image };
}

// One prompt throughout: the simulator caches its renders by prompt, so after the warm-up both
// sides get the same ready image and the difference is protocol + studio work, not drawing.
const PROMPT = 'a red kite over a green hill';
for (let index = 0; index < WARMUP; index += 1) {
  await viaStudio(PROMPT);
  if (baselineUrl) await viaStudio(PROMPT, baselineUrl);
  await direct(PROMPT);
  await viaFloor(PROMPT);
  await viaFloor(PROMPT, httpFloorUrl);
}

const PARTICIPANTS = ['studio', 'direct', 'floor', 'httpFloor'] as const;
/** Each participant goes first, second, third and last in turn. */
const ROTATIONS = PARTICIPANTS.map((_, shift) => PARTICIPANTS.map((__, index) => PARTICIPANTS[(index + shift) % PARTICIPANTS.length]));
const studioMs: number[] = [];
const directMs: number[] = [];
const overheadMs: number[] = [];
const upstreamMs: number[] = [];
const saveMs: number[] = [];
const outsideSlotMs: number[] = [];
const baselineMs: number[] = [];
const baselineOverheadMs: number[] = [];
const floorOverheadMs: number[] = [];
const httpFloorOverheadMs: number[] = [];
let sample: Buffer | undefined;
if (process.env.BENCH_THREADS) threads = new ThreadAccount(studio.process.pid as number);
const measureStarted = performance.now();
for (let index = 0; index < ITERATIONS; index += 1) {
  if (performance.now() - measureStarted > MEASURE_BUDGET_MS) break;
  const prompt = PROMPT;
  let viaStudioRun!: Awaited<ReturnType<typeof viaStudio>>;
  let directRun!: Awaited<ReturnType<typeof direct>>;
  // The baseline goes first or last in turn, so neither studio always follows the other.
  let baselineRun: Awaited<ReturnType<typeof viaStudio>> | undefined;
  if (baselineUrl && index % 2 === 1) baselineRun = await viaStudio(prompt, baselineUrl);
  const order = ROTATIONS[index % ROTATIONS.length];
  let floorRun = 0;
  let httpFloorRun = 0;
  for (const who of order) {
    if (who === 'studio') viaStudioRun = await viaStudio(prompt);
    else if (who === 'direct') directRun = await direct(prompt);
    else if (who === 'floor') floorRun = await viaFloor(prompt);
    else httpFloorRun = await viaFloor(prompt, httpFloorUrl);
  }
  floorOverheadMs.push(floorRun - directRun.ms);
  httpFloorOverheadMs.push(httpFloorRun - directRun.ms);
  if (baselineUrl && index % 2 === 0) baselineRun = await viaStudio(prompt, baselineUrl);
  if (baselineRun) {
    baselineMs.push(baselineRun.ms);
    baselineOverheadMs.push(baselineRun.ms - directRun.ms);
  }
  studioMs.push(viaStudioRun.ms);
  directMs.push(directRun.ms);
  overheadMs.push(viaStudioRun.ms - directRun.ms);
  upstreamMs.push(viaStudioRun.result.timings.upstreamMs);
  saveMs.push(viaStudioRun.result.timings.saveMs);
  outsideSlotMs.push(viaStudioRun.ms - viaStudioRun.result.timings.totalMs);
  sample = directRun.image;
}

await studio.send({ type: 'stop' });
baseline?.send({ type: 'stop' });
floor.send({ type: 'stop' });
httpFloor.send({ type: 'stop' });
await sim.send({ type: 'stop' });
await Promise.all([studio.stop(), sim.stop(), floor.stop(), httpFloor.stop(), baseline?.stop()]);

// saveAsset's steps, one by one, on the same upstream image bytes.
async function timed(run: () => Promise<unknown> | unknown): Promise<number> {
  const values: number[] = [];
  for (let round = 0; round < COMPONENT_ROUNDS; round += 1) {
    const started = performance.now();
    await run();
    values.push(performance.now() - started);
  }
  return percentile(
    values.sort((a, b) => a - b),
    0.5,
  );
}
const image = sample as Buffer;
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-save-'));
const size = { width: 1024, height: 1024 };
const metadata = {
  prompt: 'a red kite',
  lane: 'api',
  model: 'lang-5.6-luna',
  requestId: 'bench',
  kind: 'generate' as const,
  settings: { size: '1024x1024' },
};
const embedded = embedMetadata(image, 'png', metadata, size);
let fileIndex = 0;
const files = new DurableWriter();
await files.write(join(scratch, 'warm.png'), embedded);
const components = {
  base64DecodeMs: await timed(() => Buffer.from(image.toString('base64'), 'base64')),
  decodeProbeMs: await timed(() => sharp(image).metadata()),
  metadataEmbedMs: await timed(() => embedMetadata(image, 'png', metadata, size)),
  thumbnailMs: await timed(() => makeThumbnail(embedded)),
  fileWriteMs: await timed(() => files.write(join(scratch, `image-${fileIndex++}.png`), embedded, { exclusive: true })),
};
await files.close();
rmSync(scratch, { recursive: true, force: true });

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p = (values: number[], q: number) => round(percentile(sorted(values), q));
const ratio = round(percentile(sorted(studioMs), 0.5) / percentile(sorted(directMs), 0.5), 3);

console.log(
  `generate: ${studioMs.length} interleaved rounds after ${WARMUP} warm-up rounds; 1024x1024 PNG, partial_images 2; image ${image.length} bytes; simulator renders cached`,
);
console.log(
  table(
    ['measure', 'p50 ms', 'p99 ms'],
    [
      ['direct to simulator (SSE parse + decode)', p(directMs, 0.5), p(directMs, 0.99)],
      ['POST /api/generate (sync JSON)', p(studioMs, 0.5), p(studioMs, 0.99)],
      ['added overhead (pairwise studio - direct)', p(overheadMs, 0.5), p(overheadMs, 0.99)],
      ['floor gateway overhead (pairwise floor - direct)', p(floorOverheadMs, 0.5), p(floorOverheadMs, 0.99)],
      ['floor gateway on node:http (pairwise - direct)', p(httpFloorOverheadMs, 0.5), p(httpFloorOverheadMs, 0.99)],
      ['  in studio: upstream call (stream + decode)', p(upstreamMs, 0.5), p(upstreamMs, 0.99)],
      ['  in studio: saveAsset (all steps)', p(saveMs, 0.5), p(saveMs, 0.99)],
      ['  around the slot (HTTP, job record, answer)', p(outsideSlotMs, 0.5), p(outsideSlotMs, 0.99)],
    ],
  ),
);
console.log(`ratio of medians (studio / direct): ${ratio}`);
const aboveFloor = round(percentile(sorted(overheadMs), 0.5) - percentile(sorted(floorOverheadMs), 0.5));
console.log(`studio overhead above the floor gateway's (difference of medians): ${aboveFloor} ms`);
const aboveHttpFloor = round(percentile(sorted(overheadMs), 0.5) - percentile(sorted(httpFloorOverheadMs), 0.5));
console.log(`studio overhead above the node:http floor gateway's (difference of medians; the studio's bookkeeping): ${aboveHttpFloor} ms`);
const baselineRatio = baselineMs.length
  ? round(percentile(sorted(overheadMs), 0.5) / percentile(sorted(baselineOverheadMs), 0.5), 3)
  : undefined;
if (baselineMs.length) {
  console.log(
    `baseline ${baselineTree}: POST /api/generate p50 ${p(baselineMs, 0.5)} p99 ${p(baselineMs, 0.99)} ms; added overhead p50 ${p(baselineOverheadMs, 0.5)} p99 ${p(baselineOverheadMs, 0.99)} ms`,
  );
  console.log(`added overhead, this tree / baseline (ratio of medians): ${baselineRatio}`);
}
const threadRows = threads?.rows() ?? [];
if (threadRows.length) {
  console.log("the studio's threads during a request (POST to answer), per request:");
  console.log(table(['thread', 'CPU ms', 'voluntary switches', 'involuntary switches'], threadRows));
}
console.log('saveAsset steps on the same bytes, measured in this process (p50 of 20):');
console.log(
  table(
    ['step', 'p50 ms'],
    Object.entries(components).map(([name, value]) => [name, round(value)]),
  ),
);
console.log(
  JSON.stringify({
    bench: 'generate',
    rounds: studioMs.length,
    directMs: { p50: p(directMs, 0.5), p99: p(directMs, 0.99) },
    studioMs: { p50: p(studioMs, 0.5), p99: p(studioMs, 0.99) },
    overheadMs: { p50: p(overheadMs, 0.5), p99: p(overheadMs, 0.99) },
    floorOverheadMs: { p50: p(floorOverheadMs, 0.5), p99: p(floorOverheadMs, 0.99) },
    aboveFloorMs: aboveFloor,
    httpFloorOverheadMs: { p50: p(httpFloorOverheadMs, 0.5), p99: p(httpFloorOverheadMs, 0.99) },
    aboveHttpFloorMs: aboveHttpFloor,
    ratio,
    ...(baselineMs.length
      ? {
          baseline: {
            tree: baselineTree,
            studioMs: { p50: p(baselineMs, 0.5), p99: p(baselineMs, 0.99) },
            overheadMs: { p50: p(baselineOverheadMs, 0.5), p99: p(baselineOverheadMs, 0.99) },
            overheadRatio: baselineRatio,
          },
        }
      : {}),
    studioTimings: {
      upstreamMs: { p50: p(upstreamMs, 0.5), p99: p(upstreamMs, 0.99) },
      saveMs: { p50: p(saveMs, 0.5), p99: p(saveMs, 0.99) },
      aroundSlotMs: { p50: p(outsideSlotMs, 0.5), p99: p(outsideSlotMs, 0.99) },
    },
    saveSteps: Object.fromEntries(Object.entries(components).map(([name, value]) => [name, round(value)])),
    ...(threadRows.length
      ? { threads: threadRows.map(([thread, cpuMs, voluntary, involuntary]) => ({ thread, cpuMs, voluntary, involuntary })) }
      : {}),
  }),
);
