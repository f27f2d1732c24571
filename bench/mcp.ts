// The MCP lanes, as ratios against the same work done directly in the same run:
//
// 1. Added time per image job: `POST /api/mcp/generate` followed on
//    /api/events to its `done` (the file in history), against a bare SDK client
//    making the same tool calls (generate_image, get_task at the same interval
//    until SUCCEEDED) and downloading the file, interleaved. The difference is
//    what the studio adds (planning, the job row, the steps, the durable write
//    and the history row).
// 2. 32 tasks polling at once (each task runs 3 s, polled every 100 ms; the
//    simulator in its own process): the studio's event-loop delay p99 while
//    they poll, download and save, against the same loop idle.
//
// Studio, simulator and clients share this process. Run: node --import tsx bench/mcp.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectEvents } from '../src/common/events/client.js';
import type { ChannelEvent } from '../src/common/events/types.js';
import { startZetaSimulator } from '../src/sim/zeta/index.js';
import { startStudio } from '../src/studio/main.js';
import { startChild } from './lib/child.js';
import { percentile, round, table } from './lib/stats.js';

const ROUNDS = 20;
const POLL_MS = 20;
const CONCURRENT = 32;
const CONCURRENT_LATENCY_MS = 3000;
const CONCURRENT_POLL_MS = 100;

/** A studio on a zeta simulator: in this process, or in a child (`separate`) so the loop measured is the studio's alone. */
async function studioWith(latencyMs: number, pollMs: number, separate = false) {
  let sim: { endpoint: string; token: string; url: string; close(): Promise<void> };
  if (separate) {
    const child = startChild(join(import.meta.dirname, 'lib/mcp-sim-child.ts'), [String(latencyMs)]);
    const ready = await child.next<{ type: 'ready'; endpoint: string; token: string; url: string }>('ready');
    sim = { ...ready, close: () => child.stop() };
  } else sim = await startZetaSimulator({ latencyMs });
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
  const studio = await startStudio({
    env: { SVC_HOME: home, PATH: process.env.PATH, ZETA_MCP_TOKEN: sim.token, SVC_MCP_POLL_MS: String(pollMs) },
    upstreams: { zeta: sim.endpoint },
    port: 0,
    descriptor: false,
  });
  const waiters = new Map<string, () => void>();
  await new Promise<void>((resolve) => {
    const connection = connectEvents(`${studio.url}/api/events`, {
      onEvent: (event: ChannelEvent) => {
        if ((event.event === 'done' || event.event === 'error') && typeof event.requestId === 'string') waiters.get(event.requestId)?.();
      },
      onStatus: (status) => status === 'open' && resolve(),
    });
    closers.push(async () => connection.close());
  });
  const run = async (requestId: string, prompt: string) => {
    const ended = new Promise<void>((resolve) => waiters.set(requestId, resolve));
    const response = await fetch(`${studio.url}/api/mcp/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'zeta', kind: 'image', prompt, ratio: '1:1', requestId }),
    });
    if (response.status !== 202) throw new Error(`POST answered ${response.status}: ${await response.text()}`);
    await ended;
  };
  closers.push(async () => {
    await studio.close();
    await sim.close();
    rmSync(home, { recursive: true, force: true });
  });
  return { sim, studio, run };
}

const closers: (() => Promise<void>)[] = [];

// 1. Added time per job.
const { sim, run } = await studioWith(0, POLL_MS);
const client = new Client({ name: 'bench', version: '1.0.0' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(sim.endpoint), { requestInit: { headers: { authorization: `Bearer ${sim.token}` } } }),
);
const direct = async (prompt: string) => {
  const submitted = await client.callTool({
    name: 'generate_image',
    arguments: { rationale: 'bench', promptText: prompt, model: 'nano-banana-pro', ratio: '1:1', count: 1 },
  });
  const taskId = (submitted.structuredContent as { taskId: string }).taskId;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const task = await client.callTool({ name: 'get_task', arguments: { rationale: 'bench', id: taskId } });
    const data = task.structuredContent as { status: string; url?: string };
    if (data.status === 'SUCCEEDED' && data.url) {
      await (await fetch(data.url)).arrayBuffer();
      return;
    }
  }
};
// Warm both paths (the studio's first session, the renderer).
await run('warm', 'warm-up');
await direct('warm-up');
const studioMs: number[] = [];
const directMs: number[] = [];
for (let index = 0; index < ROUNDS; index += 1) {
  const prompt = `a kite number ${index}`;
  let started = performance.now();
  await run(`bench-${index}`, prompt);
  studioMs.push(performance.now() - started);
  started = performance.now();
  await direct(prompt);
  directMs.push(performance.now() - started);
}
await client.close();
studioMs.sort((a, b) => a - b);
directMs.sort((a, b) => a - b);
const median = (values: number[]) => percentile(values, 0.5);

// 2. 32 tasks polling at once, against the same loop idle.
const idle = monitorEventLoopDelay({ resolution: 1 });
idle.enable();
await new Promise((resolve) => setTimeout(resolve, CONCURRENT_LATENCY_MS));
idle.disable();
const busy = await studioWith(CONCURRENT_LATENCY_MS, CONCURRENT_POLL_MS, true);
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const startedAll = performance.now();
await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => busy.run(`many-${index}`, `kite ${index}`)));
const allMs = performance.now() - startedAll;
loop.disable();
const polls = ((await (await fetch(`${busy.sim.url}/__sim/calls?tool=get_task`)).json()) as { calls: unknown[] }).calls.length;

console.log(
  table(
    ['measure', 'studio', 'baseline', 'ratio'],
    [
      ['image job median (ms)', round(median(studioMs)), round(median(directMs)), round(median(studioMs) / median(directMs))],
      [
        'image job p90 (ms)',
        round(percentile(studioMs, 0.9)),
        round(percentile(directMs, 0.9)),
        round(percentile(studioMs, 0.9) / percentile(directMs, 0.9)),
      ],
      [
        `event-loop p99 (ms), ${CONCURRENT} tasks polling vs idle`,
        round(loop.percentile(99) / 1e6),
        round(idle.percentile(99) / 1e6),
        round(loop.percentile(99) / idle.percentile(99)),
      ],
    ],
  ),
);
console.log(
  JSON.stringify({
    bench: 'mcp',
    imageJobMs: {
      studioP50: round(median(studioMs)),
      directP50: round(median(directMs)),
      ratio: round(median(studioMs) / median(directMs)),
    },
    concurrentTasks: {
      tasks: CONCURRENT,
      loopP99Ms: round(loop.percentile(99) / 1e6),
      idleLoopP99Ms: round(idle.percentile(99) / 1e6),
      allDoneMs: round(allMs),
      polls,
    },
  }),
);
console.log(
  `${CONCURRENT} tasks of ${CONCURRENT_LATENCY_MS} ms: all done in ${round(allMs)} ms, ${polls} polls, added per job (median): ${round(median(studioMs) - median(directMs))} ms`,
);
for (const close of closers.reverse()) await close();
