// Team mode (issue 44): studios as real processes on one PostgreSQL and one bucket, against the
// embedded studio (SQLite and files, no settings) measured in the same run as the baseline.
//
// Everything is started here and stopped at the end (also on failure): PostgreSQL in a temp dir
// (test/helpers/postgres.ts, with pg_stat_statements loaded), s3rver (test/helpers/s3.ts, in this
// process), the simulators in their own process (`svc sim serve --latency 0`), and each studio as
// `svc serve` from the sources through tsx (as the team tests run it: no build needed; start-up
// is not measured here), each with a state dir of its own. Loopback only.
//
// For each configuration (the embedded studio; a team of 1 and of 3 on PostgreSQL with s3rver;
// the same with each studio's files in its own SVC_HOME, SVC_ASSET_STORE unset), after a warm-up:
// - a burst of N async jobs on the `api` lane (the cheapest: one streamed call the simulator
//   answers at once from its render cache, 256x256) sent round-robin to the studios, at most 32
//   requests in flight; jobs/s until the last `done` reached an event stream;
// - accept-to-start (createdAt → startedAt of each job's record, GET /api/jobs);
// - the cost of a job: CPU of each studio process and of PostgreSQL (the postmaster and every
//   backend, from /proc), statements (pg_stat_statements), write transactions (xids given out),
//   WAL bytes; lock waits sampled from pg_locks every few ms (the claim lock, the event counter
//   row, others) and how much of the time the claim lock was held;
// - with 3 studios, event lag across instances: a subscriber on each studio's /api/events; for
//   each job's `done`, the delay between the first stream to carry it (the studio that ran it
//   sends its own without a read) and each of the other two.
// Then, on the team of 3 with s3rver: a burst of `gamma` jobs (submit, then polls: a job that
// survives its studio) and one studio SIGKILLed mid-burst: jobs lost, jobs submitted upstream more
// than once, how long until the dead studio held no lease (its orphans taken over) and until the
// rest finished. The figures end with what they predict on more cores.
//
// Run: node --import tsx bench/cluster.ts   (BENCH_CLUSTER_JOBS=200 (at most 200)  BENCH_CLUSTER_FILES=0 skips the
//      configurations with files per studio)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createParser } from 'eventsource-parser';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { startS3, type TestS3 } from '../test/helpers/s3.js';
import { startSvc, type RunningSvc } from '../test/helpers/svc.js';
import { cpuMs, parentOf, treeCpuMs } from './lib/proc-cpu.js';
import { percentile, round, table } from './lib/stats.js';

const JOBS = Math.min(200, Math.max(10, Number(process.env.BENCH_CLUSTER_JOBS ?? 200)));
const KILL_JOBS = 90;
const WARMUP = 20;
const IN_FLIGHT = 32;
const WITH_FILES = process.env.BENCH_CLUSTER_FILES !== '0';
const SAMPLE_EVERY_MS = 5;
/** BENCH_CLUSTER_ONLY=0,2: only these configurations (by index; the first, the baseline, should stay). */
/** BENCH_CLUSTER_LOGS=<dir>: each studio's stderr is written there when it stops. */
const LOGS = process.env.BENCH_CLUSTER_LOGS;
/** BENCH_CLUSTER_PROFILES=<dir>: each studio writes a V8 CPU profile there (node --cpu-prof) when it stops. */
const PROFILES = process.env.BENCH_CLUSTER_PROFILES;
const ONLY = process.env.BENCH_CLUSTER_ONLY?.split(',').map(Number);
/** The whole run's budget: past it, everything is stopped and the run fails. */
const RUN_BUDGET_MS = 300_000;
/** The team's claim lock (take_claim_lock in store/pg/migrations.ts), as pg_locks shows a one-word key. */
const CLAIM_LOCK_KEY = 0x5376_6a01;
const SUBMIT_GAMMA = 'POST /api/v1/model/generateImage';

interface Config {
  readonly name: string;
  readonly instances: number;
  readonly team: boolean;
  readonly assets: 's3' | 'files';
}
const CONFIGS: Config[] = [
  { name: 'embedded (SQLite, files)', instances: 1, team: false, assets: 'files' },
  { name: 'team of 1 (PostgreSQL, s3rver)', instances: 1, team: true, assets: 's3' },
  { name: 'team of 3 (PostgreSQL, s3rver)', instances: 3, team: true, assets: 's3' },
  ...(WITH_FILES
    ? ([
        { name: 'team of 1 (PostgreSQL, files)', instances: 1, team: true, assets: 'files' },
        { name: 'team of 3 (PostgreSQL, files)', instances: 3, team: true, assets: 'files' },
      ] as const)
    : []),
];

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const q = (values: number[], p: number) => round(percentile(sorted(values), p));
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

// --- What is stopped at the end, last started first (also on failure).
const closers: Array<() => Promise<unknown>> = [];
async function closeAll(): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close().catch((error) => console.error('cleanup:', error));
}
const watchdog = setTimeout(() => {
  console.error(`bench/cluster: over its budget of ${RUN_BUDGET_MS / 1000} s; stopping`);
  void closeAll().finally(() => process.exit(1));
}, RUN_BUDGET_MS);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void closeAll().finally(() => process.exit(130)));

/** Stops a process: SIGTERM (or the signal given), SIGKILL after 10 s. */
async function stop(running: RunningSvc, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000);
  await running.stop(signal);
  clearTimeout(timer);
}

// --- Event streams: when each event id reached each stream.
interface Arrival {
  readonly id: string;
  readonly event: string;
  readonly requestId: string;
  readonly at: number;
}
interface Stream {
  readonly arrivals: Map<string, Arrival>;
  /** requestId → its `done` or `error` arrival. */
  readonly ended: Map<string, Arrival>;
  /** Times the studio ended the stream (then it is opened again from the last id, as EventSource does), and replay_gap notices. */
  readonly drops: number;
  readonly gaps: number;
  /** Jobs whose partial images came whole on this stream: the studio that ran them (another's reach it as replay copies, the images `omitted`). */
  readonly ran: Set<string>;
  /** Why reopening it failed, each time it did. */
  readonly refusals: string[];
  close(): void;
}

/** A reader of a studio's /api/events that resumes from its last id when the studio ends the stream. */
async function subscribe(url: string): Promise<Stream> {
  const controller = new AbortController();
  const arrivals = new Map<string, Arrival>();
  const ended = new Map<string, Arrival>();
  let lastId: string | undefined;
  const stream = { arrivals, ended, drops: 0, gaps: 0, ran: new Set<string>(), refusals: [] as string[], close: () => controller.abort() };
  const open = async () => {
    const response = await fetch(`${url}/api/events`, { signal: controller.signal, headers: lastId ? { 'last-event-id': lastId } : {} });
    if (!response.ok || !response.body) throw new Error(`${url}/api/events answered ${response.status}`);
    const parser = createParser({
      onEvent(message) {
        if (message.id === undefined) return;
        lastId = message.id;
        const data = JSON.parse(message.data) as { event?: string; requestId?: string; omitted?: string[] };
        if (data.event === 'replay_gap') stream.gaps += 1;
        if (data.event === 'partial' && !data.omitted) stream.ran.add(String(data.requestId));
        const arrival = { id: message.id, event: String(data.event), requestId: String(data.requestId), at: performance.now() };
        if (!arrivals.has(message.id)) arrivals.set(message.id, arrival);
        if ((arrival.event === 'done' || arrival.event === 'error') && !ended.has(arrival.requestId)) ended.set(arrival.requestId, arrival);
      },
    });
    return { parser, reader: response.body.getReader() };
  };
  let current = await open();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      try {
        const { value, done } = await current.reader.read();
        if (!done) {
          current.parser.feed(decoder.decode(value, { stream: true }));
          continue;
        }
      } catch {
        // Closed by us, or the studio died (the kill phase).
      }
      if (controller.signal.aborted) return;
      stream.drops += 1;
      // Opened again as EventSource would (after `retry: 1000`, sooner here); a studio that keeps refusing (the killed one) is left.
      for (let attempt = 0; ; attempt += 1) {
        try {
          current = await open();
          break;
        } catch (error) {
          stream.refusals.push(String((error as Error).message));
          if (controller.signal.aborted || attempt >= 20) return;
          await sleep(250);
        }
      }
    }
  })();
  return stream;
}

/** Waits until `stream` has an end for every id; throws on a job that ended in error, or after `timeoutMs`. */
async function allEnded(stream: Stream, ids: readonly string[], timeoutMs = 90_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ends = ids.map((id) => stream.ended.get(id));
    if (ends.every(Boolean)) return Math.max(...ends.map((end) => end!.at));
    if (Date.now() > deadline)
      throw new Error(
        `${ends.filter((end) => !end).length} of ${ids.length} jobs had not ended on a stream after ${timeoutMs} ms` +
          ` (it saw ${stream.arrivals.size} events, was cut ${stream.drops} times, reopening failed: ${stream.refusals.slice(-3).join('; ') || 'never'})`,
      );
    await sleep(20);
  }
}

/** Waits until every job is finished in the team's database; when the last was seen so. */
async function allFinished(databaseUrl: string, ids: readonly string[], timeoutMs = 90_000): Promise<number> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { rows } = await db.query<{ n: string }>(
        'SELECT count(*) AS n FROM jobs WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL',
        [ids],
      );
      if (Number(rows[0].n) === ids.length) return performance.now();
      if (Date.now() > deadline)
        throw new Error(`${ids.length - Number(rows[0].n)} of ${ids.length} jobs had not finished after ${timeoutMs} ms`);
      await sleep(10);
    }
  } finally {
    await db.end().catch(() => {});
  }
}

/** Sends the jobs round-robin, at most IN_FLIGHT at once; each must be accepted (202). Answers how long each took to be accepted. */
async function send(urls: readonly string[], ids: readonly string[], body: (index: number) => Record<string, unknown>): Promise<number[]> {
  let next = 0;
  const acceptMs: number[] = [];
  const worker = async () => {
    while (next < ids.length) {
      const index = next++;
      const started = performance.now();
      const answer = await post(`${urls[index % urls.length]}/api/generate`, { ...body(index), async: true, requestId: ids[index] });
      if (answer.status !== 202) throw new Error(`job ${ids[index]}: ${answer.status} ${await answer.text()}`);
      await answer.arrayBuffer();
      acceptMs.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return acceptMs;
}

interface FinishedJob {
  readonly requestId: string;
  readonly state: string;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly attempt: number;
}
/** The records of jobs that ended since `since` (at most 200: GET /api/jobs's limit). */
async function finishedJobs(url: string, since: Date): Promise<FinishedJob[]> {
  const answer = await fetch(`${url}/api/jobs?since=${encodeURIComponent(since.toISOString())}&limit=200`);
  return ((await answer.json()) as { jobs: FinishedJob[] }).jobs;
}

// --- PostgreSQL: its statements, transactions, WAL, CPU and locks, read from an admin connection.
interface PgMark {
  readonly xid: number;
  readonly lsn: string;
  readonly cpuMs: number;
  readonly samplerMs: number;
}
interface StatementCost {
  readonly query: string;
  readonly calls: number;
  readonly totalMs: number;
  readonly meanMs: number;
}
interface LockSamples {
  count: number;
  claimHeld: number;
  claimWaiting: number[];
  counterWaiting: number[];
  otherWaiting: number[];
}

class PgObserver {
  private constructor(
    private readonly admin: pg.Client,
    private readonly sampler: pg.Client,
    private readonly postmaster: number,
    private readonly samplerPid: number,
  ) {}

  static async open(server: TestPostgres): Promise<PgObserver> {
    const admin = new pg.Client({ connectionString: server.url });
    const sampler = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await sampler.connect();
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const pidOf = async (client: pg.Client) => Number((await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid);
    const postmaster = parentOf(await pidOf(admin));
    if (!postmaster) throw new Error('cannot find the postmaster');
    return new PgObserver(admin, sampler, postmaster, await pidOf(sampler));
  }

  async reset(): Promise<void> {
    await this.admin.query('SELECT pg_stat_statements_reset()');
  }

  async mark(): Promise<PgMark> {
    const { rows } = await this.admin.query<{ xid: string; lsn: string }>(
      'SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xid, pg_current_wal_lsn()::text AS lsn',
    );
    return { xid: Number(rows[0].xid), lsn: rows[0].lsn, cpuMs: treeCpuMs(this.postmaster), samplerMs: cpuMs(this.samplerPid) };
  }

  async walBytes(from: PgMark, to: PgMark): Promise<number> {
    const { rows } = await this.admin.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($1, $2)::text AS bytes', [to.lsn, from.lsn]);
    return Number(rows[0].bytes);
  }

  /** The statements of one database since the last reset, the most time first. */
  async statements(database: string): Promise<StatementCost[]> {
    const { rows } = await this.admin.query<{ query: string; calls: string; total: number; mean: number }>(
      `SELECT query, calls::text, total_exec_time AS total, mean_exec_time AS mean FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) ORDER BY total_exec_time DESC`,
      [database],
    );
    return rows.map((row) => ({
      query: row.query.replace(/\s+/g, ' ').trim(),
      calls: Number(row.calls),
      totalMs: row.total,
      meanMs: row.mean,
    }));
  }

  /** Samples pg_locks until the answer's `stop` is called: the claim lock held, and who waits for what. */
  sampleLocks(): { stop(): Promise<LockSamples> } {
    const samples: LockSamples = { count: 0, claimHeld: 0, claimWaiting: [], counterWaiting: [], otherWaiting: [] };
    let running = true;
    const loop = (async () => {
      // Until stopped, or until a read fails (the run is failing and its connection was closed).
      while (running) {
        const { rows } = await this.sampler.query<{ held: number; claim: number; counter: number; other: number }>(
          `SELECT count(*) FILTER (WHERE l.locktype = 'advisory' AND l.objid = $1 AND l.granted)::int AS held,
             count(*) FILTER (WHERE l.locktype = 'advisory' AND NOT l.granted)::int AS claim,
             count(*) FILTER (WHERE l.locktype <> 'advisory' AND NOT l.granted AND a.query LIKE '%event_log%')::int AS counter,
             count(*) FILTER (WHERE l.locktype <> 'advisory' AND NOT l.granted AND a.query NOT LIKE '%event_log%')::int AS other
           FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid`,
          [CLAIM_LOCK_KEY],
        );
        const [row] = rows;
        samples.count += 1;
        samples.claimHeld += row.held > 0 ? 1 : 0;
        samples.claimWaiting.push(row.claim);
        samples.counterWaiting.push(row.counter);
        samples.otherWaiting.push(row.other);
        await sleep(SAMPLE_EVERY_MS);
      }
    })().catch(() => {});
    return {
      stop: async () => {
        running = false;
        await loop;
        return samples;
      },
    };
  }

  /** PostgreSQL's CPU between two marks, less the lock sampler's own backend. */
  cpuBetween(from: PgMark, to: PgMark): number {
    return to.cpuMs - from.cpuMs - (to.samplerMs - from.samplerMs);
  }

  async close(): Promise<void> {
    await this.sampler.end().catch(() => {});
    await this.admin.end().catch(() => {});
  }
}

// --- One configuration's studios.
interface Studio {
  readonly url: string;
  readonly instance: string;
  readonly process: RunningSvc;
  readonly home: string;
}
interface Team {
  readonly config: Config;
  readonly studios: Studio[];
  readonly database?: string;
  readonly databaseUrl?: string;
  readonly streams: Stream[];
  close(): Promise<void>;
}

async function startTeam(config: Config, index: number, rig: Rig): Promise<Team> {
  const database = config.team ? `bench_cluster_${index}` : undefined;
  const databaseUrl = database ? await rig.postgres.createDatabase(database) : undefined;
  const env: Record<string, string> = {
    ...rig.simEnv,
    ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : {}),
    ...(config.team && config.assets === 's3' ? { SVC_ASSET_STORE: `s3://${rig.s3.bucket}/config-${index}`, ...rig.s3.env } : {}),
  };
  const studios: Studio[] = [];
  const streams: Stream[] = [];
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const stream of streams) stream.close();
    for (const [member, studio] of studios.entries()) {
      await stop(studio.process);
      if (LOGS) writeFileSync(join(LOGS, `config-${index}-studio-${member}.log`), studio.process.stderr());
      rmSync(studio.home, { recursive: true, force: true });
    }
  };
  closers.push(close);
  // One at a time: the first makes the schema, the others find it.
  for (let member = 0; member < config.instances; member += 1) {
    const home = mkdtempSync(join(tmpdir(), 'svc-bench-cluster-'));
    let running: RunningSvc;
    try {
      const nodeArgs = PROFILES ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILES, `config-${index}`)}`] : [];
      running = await startSvc(['serve', '--port', '0', '--json'], { SVC_HOME: home, ...env }, 60_000, { nodeArgs });
    } catch (error) {
      rmSync(home, { recursive: true, force: true });
      throw error;
    }
    const url = String(running.first.url);
    const health = (await (await fetch(`${url}/api/health`)).json()) as { instance: string };
    studios.push({ url, instance: health.instance, process: running, home });
  }
  for (const studio of studios) streams.push(await subscribe(studio.url));
  return { config, studios, database, databaseUrl, streams, close };
}

/** The studios' CPU so far, by process. */
const studioCpu = (team: Team) => team.studios.map((studio) => cpuMs(studio.process.child.pid!));

interface Burst {
  readonly config: Config;
  readonly ms: number;
  readonly jobsPerSecond: number;
  readonly acceptToStart: number[];
  /** POST → 202, as the client saw it. */
  readonly acceptMs: number[];
  readonly studioCpuMs: number[];
  readonly simCpuMs: number;
  readonly pgCpuMs?: number;
  readonly statements?: StatementCost[];
  readonly writeXacts?: number;
  readonly walBytes?: number;
  readonly locks?: LockSamples;
  /** With more than one studio: the delay of each `done` on the other streams after the first. */
  readonly eventLagMs?: number[];
  /** How many jobs each studio ran. */
  readonly ranBy?: number[];
  /** Streams the studios ended in the burst (each reopened from its last id), and replay_gap notices on them. */
  readonly drops: number;
  readonly gaps: number;
  /** `done` events of jobs that succeeded that never reached a stream (summed over the streams). */
  readonly missedOnStreams: number;
}

const API_JOB = { provider: 'api', prompt: 'a cluster of lighthouses', size: '256x256' };

async function burst(team: Team, rig: Rig, label: string): Promise<Burst> {
  const urls = team.studios.map((studio) => studio.url);
  // Warm-up: connections, the simulator's render cache, the studios' code paths.
  const warm = Array.from({ length: WARMUP }, (_, index) => `${label}-warm-${index}`);
  await send(urls, warm, () => API_JOB);
  await allEnded(team.streams[0], warm);
  await sleep(300);
  const ids = Array.from({ length: JOBS }, (_, index) => `${label}-${index}`);
  const pgObserver = team.config.team ? rig.pg : undefined;
  await pgObserver?.reset();
  const since = new Date(Date.now() - 1000);
  const before = { studios: studioCpu(team), sim: cpuMs(rig.sim.child.pid!), pg: await pgObserver?.mark() };
  const sampler = pgObserver?.sampleLocks();
  const dropsBefore = sum(team.streams.map((stream) => stream.drops));
  const gapsBefore = sum(team.streams.map((stream) => stream.gaps));
  const started = performance.now();
  const acceptMs = await send(urls, ids, () => API_JOB);
  // Ended: on the team, finished in the database (a stream may miss a `done`: counted below); embedded, its stream.
  const lastEnd = team.databaseUrl ? await allFinished(team.databaseUrl, ids) : await allEnded(team.streams[0], ids);
  const ms = lastEnd - started;
  const after = { studios: studioCpu(team), sim: cpuMs(rig.sim.child.pid!), pg: await pgObserver?.mark() };
  const locks = await sampler?.stop();
  const records = (await finishedJobs(urls[0], since)).filter((job) => ids.includes(job.requestId));
  const failed = records.filter((job) => job.state !== 'succeeded');
  if (records.length !== JOBS || failed.length)
    throw new Error(
      `${label}: ${records.length} records of ${JOBS}, not succeeded: ${failed.map((job) => `${job.requestId} ${job.state}`).join(', ')}`,
    );
  const acceptToStart = records.map((job) => Date.parse(job.startedAt ?? '') - Date.parse(job.createdAt));
  let eventLagMs: number[] | undefined;
  let ranBy: number[] | undefined;
  await Promise.all(team.streams.map((stream) => allEnded(stream, ids, 3000).catch(() => {})));
  const missedOnStreams = sum(team.streams.map((stream) => ids.filter((id) => !stream.ended.has(id)).length));
  if (team.streams.length > 1) {
    eventLagMs = [];
    ranBy = team.streams.map(() => 0);
    for (const id of ids) {
      const arrivals = team.streams.map((stream) => stream.ended.get(id));
      if (!arrivals.every(Boolean)) continue;
      if (new Set(arrivals.map((arrival) => arrival!.id)).size !== 1)
        throw new Error(`${id}: its end has different event ids on the studios`);
      const runner = team.streams.findIndex((stream) => stream.ran.has(id));
      if (runner === -1) continue; // its runner's stream was cut and reopened before its partials (then replayed without images)
      ranBy[runner] += 1;
      for (const [index, arrival] of arrivals.entries()) if (index !== runner) eventLagMs.push(arrival!.at - arrivals[runner]!.at);
    }
  }
  return {
    config: team.config,
    ms,
    jobsPerSecond: (JOBS * 1000) / ms,
    acceptToStart,
    acceptMs,
    studioCpuMs: after.studios.map((value, index) => value - before.studios[index]),
    simCpuMs: after.sim - before.sim,
    ...(pgObserver && before.pg && after.pg && team.database
      ? {
          pgCpuMs: pgObserver.cpuBetween(before.pg, after.pg),
          statements: await pgObserver.statements(team.database),
          writeXacts: after.pg.xid - before.pg.xid,
          walBytes: await pgObserver.walBytes(before.pg, after.pg),
          locks,
        }
      : {}),
    eventLagMs,
    ranBy,
    missedOnStreams,
    drops: sum(team.streams.map((stream) => stream.drops)) - dropsBefore,
    gaps: sum(team.streams.map((stream) => stream.gaps)) - gapsBefore,
  };
}

interface KillResult {
  readonly jobs: number;
  readonly heldAtKill: number;
  readonly doneAtKill: number;
  readonly succeeded: number;
  readonly notSucceeded: string[];
  readonly retried: number;
  readonly submittedTwice: number;
  readonly notSubmitted: number;
  readonly takeoverMs: number;
  /** Jobs that succeeded but whose `done` never reached a survivor's stream, and of those, how many have no `done` in the log at all. */
  readonly doneNotOnStream: number;
  readonly doneNotInLog: number;
  readonly restMs: number;
  readonly totalMs: number;
}

/** Gamma jobs round-robin on the three; the first studio SIGKILLed once it holds jobs and a fifth have ended. */
async function killMidBurst(team: Team, rig: Rig): Promise<KillResult> {
  const [victim] = team.studios;
  const ids = Array.from({ length: KILL_JOBS }, (_, index) => `kill-${index}`);
  const since = new Date(Date.now() - 1000);
  const started = performance.now();
  // All sent (each accepted) before the kill: what is measured is the queue's recovery, not the client's.
  await send(
    team.studios.map((studio) => studio.url),
    ids,
    (index) => ({ provider: 'gamma', prompt: `a cluster harbour ${index}`, size: '256x256' }),
  );
  // Who holds what, read from the team's database (an HTTP read through a loaded studio is too slow to catch a moment).
  const db = new pg.Client({ connectionString: team.databaseUrl });
  await db.connect();
  const held = async (ids?: readonly string[]) =>
    (
      await db.query<{ id: string }>(
        `SELECT id FROM jobs WHERE lease_owner = $1 AND state IN ('running', 'waiting') AND ($2::text[] IS NULL OR id = ANY($2::text[]))`,
        [victim.instance, ids ?? null],
      )
    ).rows.map((row) => row.id);
  const finishedCount = async () =>
    Number(
      (await db.query<{ n: string }>('SELECT count(*) AS n FROM jobs WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL', [ids]))
        .rows[0].n,
    );
  const watch = team.streams[1];
  try {
    // A gamma job holds a lease while it runs (submit, a poll, the download, the save), not while it is
    // parked between polls: killed at a moment it holds some, once a tenth have ended (or at 60% anyway).
    let heldAtKill: string[] = [];
    for (;;) {
      heldAtKill = await held();
      const ended = await finishedCount();
      if ((heldAtKill.length > 0 && ended >= KILL_JOBS / 10) || ended >= KILL_JOBS * 0.6) break;
      await sleep(2);
    }
    const doneAtKill = await finishedCount();
    await stop(victim.process, 'SIGKILL');
    const killedAt = performance.now();
    heldAtKill = await held(); // what it held when it died (leases are not given back by a SIGKILLed studio)
    let takeoverMs = Number.NaN;
    while (Number.isNaN(takeoverMs)) {
      if ((await held()).length === 0) takeoverMs = performance.now() - killedAt;
      else if (performance.now() - killedAt > 60_000) throw new Error('the dead studio still held leases after 60 s');
      else await sleep(5);
    }
    // Ended = finished in the database (a `done` event can be lost with the studio: counted below).
    while ((await finishedCount()) < ids.length) {
      if (performance.now() - killedAt > 90_000) throw new Error('the jobs had not all ended 90 s after the kill');
      await sleep(10);
    }
    const lastEnd = performance.now();
    await sleep(2000); // the survivors' streams catch up
    const noDone = ids.filter((id) => !watch.ended.has(id));
    const inLog = noDone.length
      ? Number(
          (
            await db.query<{ n: string }>(
              `SELECT count(*) AS n FROM events WHERE data::jsonb->>'event' = 'done' AND data::jsonb->>'requestId' = ANY($1::text[])`,
              [noDone],
            )
          ).rows[0].n,
        )
      : 0;
    const outcome = await killOutcome(team, rig, ids, since, started, killedAt, lastEnd);
    return {
      ...outcome,
      doneNotOnStream: noDone.length,
      doneNotInLog: noDone.length - inLog,
      heldAtKill: heldAtKill.length,
      doneAtKill,
      takeoverMs,
    };
  } finally {
    await db.end().catch(() => {});
  }
}

/** How the jobs of the kill phase ended, once all did. */
async function killOutcome(team: Team, rig: Rig, ids: readonly string[], since: Date, started: number, killedAt: number, lastEnd: number) {
  const [, ...survivors] = team.studios;
  const records = (await finishedJobs(survivors[0].url, since)).filter((job) => ids.includes(job.requestId));
  const succeeded = records.filter((job) => job.state === 'succeeded');
  const notSucceeded = ids.filter((id) => !succeeded.some((job) => job.requestId === id));
  const submits = (await rig.simRequests('SVC_GAMMA_BASE_URL', SUBMIT_GAMMA)).map((entry) => JSON.stringify(entry.body));
  const counts = ids.map((_, index) => submits.filter((body) => body.includes(`a cluster harbour ${index}"`)).length);
  return {
    jobs: KILL_JOBS,
    succeeded: succeeded.length,
    notSucceeded: notSucceeded.map((id) => `${id}: ${records.find((job) => job.requestId === id)?.state ?? 'no record'}`),
    retried: records.filter((job) => job.attempt !== 1).length,
    submittedTwice: counts.filter((count) => count > 1).length,
    notSubmitted: counts.filter((count) => count === 0).length,
    restMs: lastEnd - killedAt,
    totalMs: lastEnd - started,
  };
}

// --- The run.
interface Rig {
  readonly postgres: TestPostgres;
  readonly s3: TestS3;
  readonly sim: RunningSvc;
  readonly simEnv: Record<string, string>;
  readonly pg: PgObserver;
  simRequests(variable: string, route: string): Promise<Array<{ body: unknown }>>;
}

async function startRig(): Promise<Rig> {
  const postgres = await startPostgres({ settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' } });
  closers.push(() => postgres.stop());
  const s3 = await startS3('svc-bench');
  closers.push(() => s3.stop());
  const sim = await startSvc(['sim', 'serve', '--latency', '0'], {}, 60_000);
  closers.push(() => stop(sim));
  const observer = await PgObserver.open(postgres);
  closers.push(() => observer.close());
  const simEnv = (sim.first as { env: Record<string, string> }).env;
  return {
    postgres,
    s3,
    sim,
    simEnv,
    pg: observer,
    async simRequests(variable, route) {
      const origin = new URL(simEnv[variable]).origin;
      const answer = await fetch(`${origin}/__sim/requests?route=${encodeURIComponent(route)}&full=1`);
      return ((await answer.json()) as { requests: Array<{ body: unknown }> }).requests;
    },
  };
}

/** Studio stderr lines that say something went wrong (reported, not fatal). */
const complaints = (team: Team) =>
  team.studios.flatMap((studio) =>
    studio.process
      .stderr()
      .split('\n')
      .filter((line) => /error|fail|warn/i.test(line))
      .map((line) => `${studio.instance}: ${line.slice(0, 300)}`),
  );

const bursts: Burst[] = [];
let kill: KillResult | undefined;
const errors: string[] = [];
const runStarted = performance.now();
try {
  const rig = await startRig();
  for (const [index, config] of CONFIGS.entries()) {
    if (ONLY && !ONLY.includes(index)) continue;
    const team = await startTeam(config, index, rig);
    bursts.push(await burst(team, rig, `c${index}`));
    if (config.instances === 3 && config.assets === 's3') kill = await killMidBurst(team, rig);
    errors.push(...complaints(team));
    await team.close();
  }
} finally {
  await closeAll();
  clearTimeout(watchdog);
}

// --- The report.
const baseline = bursts[0];
const perJob = (value: number | undefined) => (value === undefined ? '-' : round(value / JOBS, 2));
const statementsOf = (entry: Burst) => entry.statements?.reduce((sum, statement) => sum + statement.calls, 0);
const heldShare = (entry: Burst) => (entry.locks ? entry.locks.claimHeld / Math.max(1, entry.locks.count) : undefined);
const waiting = (values: number[] | undefined) =>
  values?.length ? `${round(values.reduce((a, b) => a + b, 0) / values.length, 2)}/${Math.max(...values)}` : '-';

console.log(
  `cluster: ${JOBS} async api jobs per burst (256x256, instant simulator), ${IN_FLIGHT} requests in flight, after ${WARMUP} to warm up;`,
);
console.log(`studios are \`svc serve\` through tsx; load average at the end: ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
console.log(
  table(
    [
      'configuration',
      'jobs/s',
      'vs embedded',
      'POST→202 p50/p99 ms',
      'createdAt→startedAt p50/p99 ms',
      'studio CPU ms/job',
      'PG CPU ms/job',
      'sim CPU ms/job',
    ],
    bursts.map((entry) => [
      entry.config.name,
      round(entry.jobsPerSecond, 1),
      round(entry.jobsPerSecond / baseline.jobsPerSecond, 3),
      `${q(entry.acceptMs, 0.5)}/${q(entry.acceptMs, 0.99)}`,
      `${q(entry.acceptToStart, 0.5)}/${q(entry.acceptToStart, 0.99)}`,
      `${perJob(sum(entry.studioCpuMs))}${entry.studioCpuMs.length > 1 ? ` (${entry.studioCpuMs.map((value) => perJob(value)).join('+')})` : ''}`,
      perJob(entry.pgCpuMs),
      perJob(entry.simCpuMs),
    ]),
  ),
);
console.log();
console.log(
  table(
    [
      'configuration',
      'statements/job',
      'write xacts/job',
      'WAL KB/job',
      'claim lock held',
      'waiting: claim lock',
      'event counter',
      'other (mean/max)',
    ],
    bursts
      .filter((entry) => entry.statements)
      .map((entry) => [
        entry.config.name,
        perJob(statementsOf(entry)),
        perJob(entry.writeXacts),
        round((entry.walBytes ?? 0) / JOBS / 1024, 2),
        `${round(100 * (heldShare(entry) ?? 0), 1)}%`,
        waiting(entry.locks?.claimWaiting),
        waiting(entry.locks?.counterWaiting),
        waiting(entry.locks?.otherWaiting),
      ]),
  ),
);
for (const entry of bursts.filter((one) => one.eventLagMs)) {
  console.log(
    `\nevent lag, ${entry.config.name}: a job's \`done\` on the other studios' streams after the runner's own: p50 ${q(entry.eventLagMs!, 0.5)} ms, p99 ${q(entry.eventLagMs!, 0.99)} ms, max ${q(entry.eventLagMs!, 1)} ms; jobs run by each studio: ${entry.ranBy!.join('/')}; streams ended by a studio and reopened: ${entry.drops}, replay_gap notices: ${entry.gaps}, \`done\` of a succeeded job never on a stream: ${entry.missedOnStreams}`,
  );
}
for (const entry of bursts.filter((one) => !one.eventLagMs && (one.drops || one.missedOnStreams)))
  console.log(
    `\n${entry.config.name}: streams ended by the studio and reopened: ${entry.drops}, replay_gap notices: ${entry.gaps}, \`done\` of a succeeded job never on the stream: ${entry.missedOnStreams}`,
  );
const team3 = bursts.find((entry) => entry.config.instances === 3 && entry.config.assets === 's3');
if (team3?.statements) {
  console.log(`\nstatements of the team of 3 (s3rver), the most time first: calls per job, mean ms`);
  console.log(
    table(
      ['statement', 'calls/job', 'mean ms', 'total ms/job'],
      team3.statements
        .slice(0, 10)
        .map((statement) => [statement.query.slice(0, 90), perJob(statement.calls), round(statement.meanMs, 3), perJob(statement.totalMs)]),
    ),
  );
}
if (kill) {
  console.log(
    `\nSIGKILL mid-burst (${kill.jobs} gamma jobs on the team of 3, s3rver; killed holding ${kill.heldAtKill}, ${kill.doneAtKill} ended by then):` +
      ` lost ${kill.jobs - kill.succeeded}, \`done\` never on a survivor's stream ${kill.doneNotOnStream} (${kill.doneNotInLog} of them not in the event log)${kill.notSucceeded.length ? ` (${kill.notSucceeded.slice(0, 5).join(', ')})` : ''}, submitted twice ${kill.submittedTwice}, never submitted ${kill.notSubmitted}, retried ${kill.retried};` +
      ` its leases gone ${round(kill.takeoverMs)} ms after the kill, the rest ended ${round(kill.restMs)} ms after it (burst ${round(kill.totalMs)} ms)`,
  );
}

// What the figures predict on more cores: each serial section caps the team's throughput at
// (its rate now) / (the share of time it was busy); the CPU costs cap it at cores × 1000 / ms per job.
if (team3?.statements && team3.locks) {
  const append = team3.statements.filter((statement) => statement.query.includes('UPDATE event_log'));
  const appendBusy = sum(append.map((statement) => statement.totalMs)) / team3.ms;
  const claimBusy = heldShare(team3) ?? 0;
  const studioMs = sum(team3.studioCpuMs) / JOBS;
  const pgMs = (team3.pgCpuMs ?? Number.NaN) / JOBS;
  console.log(
    `\nprediction (team of 3, s3rver, at ${round(team3.jobsPerSecond, 1)} jobs/s on this machine):` +
      ` the claim lock was held ${round(100 * claimBusy, 1)}% of the burst → at most ~${round(team3.jobsPerSecond / Math.max(claimBusy, 1e-6), 0)} jobs/s whatever the cores;` +
      ` the event counter row was busy ≤ ${round(100 * appendBusy, 1)}% (${perJob(sum(append.map((statement) => statement.calls)))} appends/job) → ≥ ~${round(team3.jobsPerSecond / Math.max(appendBusy, 1e-6), 0)} jobs/s;` +
      ` CPU: ${round(studioMs, 2)} ms/job in the studios → ~${round(1000 / studioMs, 0)} jobs/s per studio core, ${round(pgMs, 2)} ms/job in PostgreSQL → ~${round(1000 / pgMs, 0)} jobs/s per PostgreSQL core`,
  );
}
if (errors.length) console.log(`\nstudio stderr lines with error/fail/warn (${errors.length}):\n${errors.slice(0, 10).join('\n')}`);
console.log(`\nrun took ${round((performance.now() - runStarted) / 1000, 1)} s`);
console.log(
  JSON.stringify({
    bench: 'cluster',
    jobs: JOBS,
    bursts: bursts.map((entry) => ({
      config: entry.config.name,
      jobsPerSecond: round(entry.jobsPerSecond, 1),
      ratio: round(entry.jobsPerSecond / baseline.jobsPerSecond, 3),
      acceptMs: { p50: q(entry.acceptMs, 0.5), p99: q(entry.acceptMs, 0.99) },
      acceptToStartMs: { p50: q(entry.acceptToStart, 0.5), p99: q(entry.acceptToStart, 0.99) },
      studioCpuMsPerJob: round(sum(entry.studioCpuMs) / JOBS, 2),
      pgCpuMsPerJob: entry.pgCpuMs === undefined ? undefined : round(entry.pgCpuMs / JOBS, 2),
      statementsPerJob: entry.statements ? round(statementsOf(entry)! / JOBS, 2) : undefined,
      writeXactsPerJob: entry.writeXacts === undefined ? undefined : round(entry.writeXacts / JOBS, 2),
      claimLockHeld: heldShare(entry) === undefined ? undefined : round(heldShare(entry)!, 3),
      eventLagMs: entry.eventLagMs ? { p50: q(entry.eventLagMs, 0.5), p99: q(entry.eventLagMs, 0.99) } : undefined,
      streamDrops: entry.drops,
      doneMissedOnStreams: entry.missedOnStreams,
      replayGaps: entry.gaps,
    })),
    kill,
  }),
);
