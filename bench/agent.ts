// Agent Mode's queue: 50 turns across 5 sessions (10 queued per session, the
// sessions side by side), against the same 50 generations sent directly to
// POST /api/generate by 5 clients, each sending its 10 one after another (the
// same shape: one at a time per session, sessions in parallel). Every lane is
// on its simulator in this process (no demo pacing), the image lane `oauth`.
//
// Reported: turns per second of each, and the engine's overhead per turn: the
// difference of the two per-session chains' wall time, divided by the turns
// of a chain. Turns are `/new <prompt>` (no planner call, so both sides make
// exactly the same upstream calls); a third measure runs plain-text turns,
// which add one planner call each. Rounds run A B B A.
//
// Run: node --import tsx bench/agent.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_TOPIC } from '../src/studio/api/index.js';
import { startSimulators } from '../src/demo/demo.js';
import { startStudio } from '../src/studio/main.js';
import { percentile, round, table } from './lib/stats.js';

const SESSIONS = 5;
const TURNS_PER_SESSION = 10;
const ROUNDS = 2;
const TOTAL = SESSIONS * TURNS_PER_SESSION;

const simulators = await startSimulators();
const home = mkdtempSync(join(tmpdir(), 'svc-bench-agent-'));
const studio = await startStudio({ env: { PATH: process.env.PATH, SVC_HOME: home, ...simulators.env }, port: 0, descriptor: false });
const post = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
  const response = await fetch(`${studio.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
};

/** Items that ended, by item id (from the studio's own channel). */
const ended = new Map<string, string>();
let wake: (() => void) | undefined;
studio.ctx.events.subscribe((event) => {
  const fields = event as unknown as { topic: string; event: string; itemId?: string; state?: string };
  if (fields.topic !== AGENT_TOPIC || fields.event !== 'item' || !fields.itemId || !fields.state) return;
  if (['succeeded', 'failed', 'cancelled'].includes(fields.state)) {
    ended.set(fields.itemId, fields.state);
    wake?.();
  }
});

let round_ = 0;
/** Each turn's own time in its handler (timings.totalMs), and each generation's in its job: the handler's work beside the image path. */
const turnTotals: number[] = [];
const plannedTotals: number[] = [];
const generateTotals: number[] = [];
/** 50 turns queued across 5 sessions; answers the wall time until the last ended. */
async function agentRun(kind: 'command' | 'planned'): Promise<number> {
  round_ += 1;
  const sessions = await Promise.all(
    Array.from({ length: SESSIONS }, (_, index) =>
      post('/api/agent/sessions', { title: `bench ${round_}.${index}`, settings: { provider: 'oauth' } }),
    ),
  );
  ended.clear();
  const started = performance.now();
  const ids: string[] = [];
  await Promise.all(
    sessions.map(async (session, index) => {
      for (let turn = 0; turn < TURNS_PER_SESSION; turn += 1) {
        const text = `a lighthouse ${round_}-${index}-${turn}`;
        const item = await post(`/api/agent/sessions/${String(session.id)}/queue`, { prompt: kind === 'command' ? `/new ${text}` : text });
        ids.push(String(item.itemId));
      }
    }),
  );
  while (ids.some((id) => !ended.has(id))) await new Promise<void>((resolve) => (wake = resolve));
  const wall = performance.now() - started;
  const failed = ids.filter((id) => ended.get(id) !== 'succeeded');
  if (failed.length) throw new Error(`${failed.length} agent turns did not succeed`);
  for (const session of sessions) {
    const queue = (await (await fetch(`${studio.url}/api/agent/sessions/${String(session.id)}/queue`)).json()) as {
      items: { timings: { totalMs: number } }[];
    };
    (kind === 'command' ? turnTotals : plannedTotals).push(...queue.items.map((item) => item.timings.totalMs));
  }
  return wall;
}

/** The same generations straight to /api/generate: 5 clients, each its 10 in a row. */
async function directRun(): Promise<number> {
  round_ += 1;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: SESSIONS }, async (_, index) => {
      for (let turn = 0; turn < TURNS_PER_SESSION; turn += 1) {
        const result = await post('/api/generate', { provider: 'oauth', prompt: `a lighthouse ${round_}-${index}-${turn}` });
        generateTotals.push((result.timings as { totalMs: number }).totalMs);
      }
    }),
  );
  return performance.now() - started;
}

// Warm-up: one of each.
await agentRun('command');
await directRun();
turnTotals.length = 0;
generateTotals.length = 0;

const agentMs: number[] = [];
const directMs: number[] = [];
const plannedMs: number[] = [];
for (let index = 0; index < ROUNDS; index += 1) {
  agentMs.push(await agentRun('command'));
  directMs.push(await directRun());
  directMs.push(await directRun());
  agentMs.push(await agentRun('command'));
  plannedMs.push(await agentRun('planned'));
}
await studio.close();
await simulators.close();
rmSync(home, { recursive: true, force: true });

const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
const perSecond = (ms: number) => round((TOTAL * 1000) / ms, 1);
/** Per turn: the chains ran side by side, so a chain's extra time spread over its turns. */
const overheadMs = (ms: number) => round((ms - median(directMs)) / TURNS_PER_SESSION, 2);
/** The handler's own time per turn beyond a generation's (p50 of each). */
const handlerMs = round(median(turnTotals) - median(generateTotals), 2);
console.log(
  table(
    ['measure', 'wall ms (p50)', 'turns/s', 'vs direct', 'overhead ms/turn'],
    [
      [
        `${TOTAL} turns, /new (5 sessions)`,
        round(median(agentMs)),
        perSecond(median(agentMs)),
        round(median(agentMs) / median(directMs), 3),
        overheadMs(median(agentMs)),
      ],
      [`${TOTAL} POST /api/generate (5 clients)`, round(median(directMs)), perSecond(median(directMs)), 1, 0],
      [
        `${TOTAL} turns, planned (+1 planner call each)`,
        round(median(plannedMs)),
        perSecond(median(plannedMs)),
        round(median(plannedMs) / median(directMs), 3),
        overheadMs(median(plannedMs)),
      ],
    ],
  ),
);
console.log(
  `inside a job, p50: a /new turn ${round(median(turnTotals))} ms, a generation ${round(median(generateTotals))} ms (the turn handler's own work: ${handlerMs} ms); a planned turn ${round(median(plannedTotals))} ms`,
);
console.log(
  JSON.stringify({
    bench: 'agent',
    turns: TOTAL,
    sessions: SESSIONS,
    agent: { wallMs: round(median(agentMs)), turnsPerSecond: perSecond(median(agentMs)) },
    direct: { wallMs: round(median(directMs)), generationsPerSecond: perSecond(median(directMs)) },
    ratio: round(median(agentMs) / median(directMs), 3),
    overheadMsPerTurn: overheadMs(median(agentMs)),
    inJobMs: {
      turn: round(median(turnTotals)),
      generation: round(median(generateTotals)),
      handler: handlerMs,
      plannedTurn: round(median(plannedTotals)),
    },
    planned: {
      wallMs: round(median(plannedMs)),
      turnsPerSecond: perSecond(median(plannedMs)),
      overheadMsPerTurn: overheadMs(median(plannedMs)),
    },
  }),
);
