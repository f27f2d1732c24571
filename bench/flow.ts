// The flow lane, as ratios against driving the node-graph simulator directly
// in the same run:
//
// 1. Added time per job: `POST /api/generate` (sync) of the sample workflow
//    against a bare client doing what the lane must (open the WebSocket,
//    submit, wait for `execution_success`, read `/history`, fetch `/view`),
//    interleaved, same graph and size. The difference is what the studio adds
//    (planning, the job row, injection, the steps, the durable write of the
//    image and its history row).
// 2. WebSocket throughput: 16 jobs in flight through one lane connection
//    (every step a `progress` text frame and a binary preview), messages per
//    second the lane's shared socket took in, against a bare client running
//    the same 16 prompts on its own socket.
//
// Everything runs in this process (studio, simulator, clients), so both sides
// share one event loop. Run: node --import tsx bench/flow.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { SAMPLE_WORKFLOW } from '../src/demo/sample-workflow.js';
import { startFlowSimulator } from '../src/sim/flow/index.js';
import { flowSockets } from '../src/studio/lanes/flow/sockets.js';
import { startStudio } from '../src/studio/main.js';
import { percentile, round, table } from './lib/stats.js';

const ROUNDS = 40;
const STEPS = 8;
const SIZE = { width: 512, height: 512 };
const INFLIGHT = 16;
const THROUGHPUT_STEPS = 150;

const sim = await startFlowSimulator({ stepMs: 0 });
const home = mkdtempSync(join(tmpdir(), 'svc-bench-flow-'));
const studio = await startStudio({
  env: { SVC_HOME: home, PATH: process.env.PATH, SVC_FLOW_BASE_URL: sim.url },
  port: 0,
  descriptor: false,
});
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const registered = await post(`${studio.url}/api/flow/workflows`, {
  id: 'sample',
  graph: SAMPLE_WORKFLOW.graph,
  bind: SAMPLE_WORKFLOW.bind,
});
if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);

/** The graph as the lane would inject it. */
const graphFor = (prompt: string, steps: number) => {
  const graph = structuredClone(SAMPLE_WORKFLOW.graph) as unknown as Record<string, { inputs: Record<string, unknown> }>;
  graph['6'].inputs.text = prompt;
  graph['5'].inputs.width = SIZE.width;
  graph['5'].inputs.height = SIZE.height;
  graph['3'].inputs.steps = steps;
  return graph;
};

/** A bare client of the node-graph server: one socket, prompts followed to their end by id. */
class DirectClient {
  readonly clientId = `bench-${Math.random().toString(16).slice(2)}`;
  messages = 0;
  private readonly waiting = new Map<string, () => void>();
  private readonly ended = new Set<string>();
  private socket!: WebSocket;

  async open(): Promise<void> {
    this.socket = new WebSocket(`${sim.url.replace('http', 'ws')}/ws?clientId=${this.clientId}`, { perMessageDeflate: false });
    this.socket.on('message', (data: Buffer, binary: boolean) => {
      this.messages += 1;
      if (binary) return;
      const message = JSON.parse(data.toString()) as { type: string; data: { prompt_id?: string } };
      if (message.type !== 'execution_success' || !message.data.prompt_id) return;
      this.ended.add(message.data.prompt_id);
      this.waiting.get(message.data.prompt_id)?.();
    });
    await new Promise((resolve) => this.socket.once('open', resolve));
  }

  async submit(prompt: string, steps: number): Promise<string> {
    const answer = (await (await post(`${sim.url}/prompt`, { prompt: graphFor(prompt, steps), client_id: this.clientId })).json()) as {
      prompt_id: string;
    };
    return answer.prompt_id;
  }

  done(promptId: string): Promise<void> {
    if (this.ended.has(promptId)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.set(promptId, resolve));
  }

  /** One job as the lane runs it: submit, wait for the end, read history, fetch the image. */
  async run(prompt: string, steps: number): Promise<number> {
    const promptId = await this.submit(prompt, steps);
    await this.done(promptId);
    const history = (await (await fetch(`${sim.url}/history/${promptId}`)).json()) as Record<
      string,
      { outputs: Record<string, { images: { filename: string; subfolder: string; type: string }[] }> }
    >;
    const image = history[promptId].outputs['9'].images[0];
    const bytes = await (
      await fetch(`${sim.url}/view?${new URLSearchParams({ filename: image.filename, subfolder: image.subfolder, type: image.type })}`)
    ).arrayBuffer();
    return bytes.byteLength;
  }

  close(): void {
    this.socket.close();
  }
}

const direct = new DirectClient();
await direct.open();
const throughStudio = async (prompt: string): Promise<void> => {
  const response = await post(`${studio.url}/api/generate`, {
    provider: 'flow',
    model: 'sample',
    prompt,
    size: `${SIZE.width}x${SIZE.height}`,
    options: { 'KSampler.steps': STEPS },
  });
  if (response.status !== 200) throw new Error(`generate answered ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
};

// --- 1. Added time per job. Warm-up first (the lane's socket, the renderer's cache, the writer thread).
for (let index = 0; index < 3; index += 1) {
  await direct.run(`warm ${index}`, STEPS);
  await throughStudio(`warm ${index}`);
}
const directTimes: number[] = [];
const studioTimes: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) {
  // The same prompt on both sides (the renderer's cache is per prompt), alternating which goes first.
  const prompt = `a harbour at dusk ${round}`;
  const order = round % 2 === 0 ? (['direct', 'studio'] as const) : (['studio', 'direct'] as const);
  for (const side of order) {
    const started = performance.now();
    if (side === 'direct') await direct.run(prompt, STEPS);
    else await throughStudio(prompt);
    (side === 'direct' ? directTimes : studioTimes).push(performance.now() - started);
  }
}
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const p = (values: number[], q: number) => round(percentile(sorted(values), q));
console.log(`1. One job, ${STEPS} steps at ${SIZE.width}x${SIZE.height} (simulator step 0 ms), ${ROUNDS} rounds interleaved (ms)`);
console.log(
  table(
    ['path', 'p50', 'p90', 'p99'],
    [
      ['direct client (socket, submit, history, view)', p(directTimes, 0.5), p(directTimes, 0.9), p(directTimes, 0.99)],
      ['studio POST /api/generate (flow/sample)', p(studioTimes, 0.5), p(studioTimes, 0.9), p(studioTimes, 0.99)],
    ],
  ),
);
console.log(
  `added by the studio: p50 ${round(p(studioTimes, 0.5) - p(directTimes, 0.5))} ms; ratio studio/direct p50 ${round(p(studioTimes, 0.5) / p(directTimes, 0.5))}`,
);

// --- 2. Messages per second with 16 jobs in flight.
const lane = flowSockets(studio.ctx);
const laneBefore = lane.messages(sim.url);
let started = performance.now();
await Promise.all(
  Array.from({ length: INFLIGHT }, (_, index) =>
    post(`${studio.url}/api/generate`, {
      provider: 'flow',
      model: 'sample',
      prompt: `throughput ${index}`,
      options: { 'KSampler.steps': THROUGHPUT_STEPS },
    }).then(async (response) => {
      if (response.status !== 200) throw new Error(`generate answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }),
  ),
);
const laneSeconds = (performance.now() - started) / 1000;
const laneMessages = lane.messages(sim.url) - laneBefore;

const bare = new DirectClient();
await bare.open();
started = performance.now();
const ids = await Promise.all(Array.from({ length: INFLIGHT }, (_, index) => bare.submit(`throughput ${index}`, THROUGHPUT_STEPS)));
await Promise.all(ids.map((id) => bare.done(id)));
const bareSeconds = (performance.now() - started) / 1000;

console.log(`\n2. ${INFLIGHT} jobs in flight, ${THROUGHPUT_STEPS} steps each (a progress frame and a binary preview per step)`);
const laneRate = laneMessages / laneSeconds;
const bareRate = bare.messages / bareSeconds;
console.log(
  table(
    ['connection', 'messages', 'seconds', 'messages/s'],
    [
      ['bare client socket', bare.messages, round(bareSeconds), round(bareRate, 0)],
      ["the lane's shared socket", laneMessages, round(laneSeconds), round(laneRate, 0)],
    ],
  ),
);
console.log(`ratio lane/bare messages per second: ${round(laneRate / bareRate)}`);
console.log(
  JSON.stringify({
    bench: 'flow',
    job: {
      directP50Ms: p(directTimes, 0.5),
      studioP50Ms: p(studioTimes, 0.5),
      addedP50Ms: round(p(studioTimes, 0.5) - p(directTimes, 0.5)),
      ratioP50: round(p(studioTimes, 0.5) / p(directTimes, 0.5)),
    },
    socket: {
      inflight: INFLIGHT,
      laneMessagesPerSecond: round(laneRate, 0),
      bareMessagesPerSecond: round(bareRate, 0),
      ratio: round(laneRate / bareRate),
    },
  }),
);

direct.close();
bare.close();
await studio.close();
await sim.close();
rmSync(home, { recursive: true, force: true });
