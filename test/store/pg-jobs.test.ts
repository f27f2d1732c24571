import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimRequest, JobRow, NewJobRow } from '../../src/studio/jobs/job-store.js';
import { openPgDatabase, type PgDatabase } from '../../src/studio/store/pg/database.js';
import { PgEventLog } from '../../src/studio/store/pg/events.js';
import { PgJobStore } from '../../src/studio/store/pg/jobs.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { describeJobStoreContract } from './contracts/job-store.contract.js';

// The job queue on PostgreSQL: the JobStore contract, then two instances (two
// stores on two pools over one database) claiming and adopting at once, as
// several studios of a team do. One server and one database for the file (a
// new database costs half a second here, TRUNCATE 20 ms): each test starts
// from empty tables. Last, a database whose default isolation is REPEATABLE
// READ: the claim lock needs READ COMMITTED, which every connection sets.

let postgres: TestPostgres;
/** Two instances' connections to the one database. */
let dbs: PgDatabase[];
/** The database of every test but the last describe's. */
let url: string;
beforeAll(async () => {
  postgres = await startPostgres();
  url = await postgres.createDatabase();
  dbs = [openPgDatabase(url, { max: 4 }), openPgDatabase(url, { max: 4 })];
  await Promise.all(dbs.map((db) => db.ready));
}, 60_000);
afterAll(async () => {
  await Promise.all((dbs ?? []).map((db) => db.close()));
  await postgres?.stop();
});

const emptyTables = () => dbs[0].query('TRUNCATE jobs, job_inputs RESTART IDENTITY');

describeJobStoreContract('PostgreSQL', async () => {
  await emptyTables();
  const events = await PgEventLog.open(dbs[0]);
  return { store: new PgJobStore(dbs[0], events), events, close: () => events.close() };
});

const job = (id: string, pool: string, limit: number | null, orderingKey: string | null): NewJobRow => ({
  id,
  kind: 'generate',
  lane: pool,
  model: 'lang-5.6-luna',
  request: '{}',
  created_at: new Date().toISOString(),
  priority: 0,
  ordering_key: orderingKey,
  fingerprint: null,
  attempt: 1,
  retry_of: null,
  pool,
  pool_limit: limit,
  budget_ms: 60_000,
  reaches_at_start: 0,
});

const claimOf = (owner: string, overall: number, leaseUntil = Date.now() + 60_000): ClaimRequest => ({
  owner,
  now: Date.now(),
  leaseUntil,
  overall,
  kinds: ['generate'],
});

const POOL_LIMITS: Record<string, number> = { p1: 2, p2: 3, p3: 1 };
const OVERALL = 5;

/** A holder claiming: its store (an instance), its name on leases, the kinds it runs. */
interface Worker {
  readonly store: PgJobStore;
  readonly owner: string;
  readonly kinds: readonly string[];
}

/**
 * 40 jobs over three pools (every fourth shares one of three ordering keys; every fifth is a trace)
 * through `workers` at once: 16 are queued before they start, each submits its share of the rest as
 * it claims (a submit claims as it inserts), checks what it claimed, and ends it a little later;
 * until all 40 ran. Answers who claimed each job, and what broke the policy: a job claimed twice, a
 * pool or the overall limit exceeded (what holds a slot, read after each claim), a job started
 * before the jobs of its key before it ended.
 */
async function claimRace(workers: readonly Worker[], probe: PgDatabase): Promise<{ claimedBy: Map<string, string>; violations: string[] }> {
  const jobs = Array.from({ length: 40 }, (_, index) => {
    const pool = ['p1', 'p2', 'p3'][index % 3];
    const row = job(`job-${String(index).padStart(2, '0')}`, pool, POOL_LIMITS[pool], index % 4 === 0 ? `key-${index % 3}` : null);
    return index % 5 === 0 ? { ...row, kind: 'trace' } : row;
  });
  for (const row of jobs.slice(0, 16)) await workers[0].store.insert(row, []);
  const claimedBy = new Map<string, string>();
  const violations: string[] = [];
  const check = async (owner: string, rows: readonly JobRow[]) => {
    for (const row of rows) {
      if (claimedBy.has(row.id)) violations.push(`${row.id} claimed by ${claimedBy.get(row.id)} and ${owner}`);
      claimedBy.set(row.id, owner);
      if (row.ordering_key === null) continue;
      const [{ ahead }] = await probe.query<{ ahead: number }>(
        'SELECT COUNT(*) AS ahead FROM jobs WHERE ordering_key = $1 AND seq < $2 AND finished_at IS NULL',
        [row.ordering_key, row.seq],
      );
      if (ahead > 0) violations.push(`${row.id} started with ${ahead} of its key unfinished before it`);
    }
    const held = await probe.query<{ pool: string; n: number }>(
      `SELECT pool, COUNT(*) AS n FROM jobs WHERE state IN ('running', 'waiting') AND lease_owner IS NOT NULL GROUP BY pool`,
    );
    for (const { pool, n } of held) if (n > POOL_LIMITS[pool]) violations.push(`${pool} held ${n} > ${POOL_LIMITS[pool]}`);
    const total = held.reduce((sum, { n }) => sum + n, 0);
    if (total > OVERALL) violations.push(`${total} held > ${OVERALL} overall`);
  };
  const run = async ({ store, owner, kinds }: Worker, submits: NewJobRow[]) => {
    const ends: Promise<unknown>[] = [];
    for (let idle = 0; claimedBy.size < jobs.length && idle < 500;) {
      const next = submits.shift();
      const request = { ...claimOf(owner, OVERALL), kinds };
      const inserted = next ? await store.insert(next, [], request) : undefined;
      const rows = inserted && 'claimed' in inserted ? inserted.claimed : await store.claim(request);
      await check(owner, rows);
      for (const row of rows)
        ends.push(
          new Promise((resolve) => setTimeout(resolve, Math.random() * 15)).then(() =>
            store.finish(row.id, { state: 'succeeded' }, new Date().toISOString()),
          ),
        );
      idle = rows.length || next ? 0 : idle + 1;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(ends);
  };
  const share = Math.ceil(24 / workers.length);
  await Promise.all(workers.map((worker, index) => run(worker, jobs.slice(16 + index * share, 16 + (index + 1) * share))));
  if (claimedBy.size < jobs.length) violations.push(`only ${claimedBy.size} of ${jobs.length} ran`);
  return { claimedBy, violations };
}

/** Four workers on each store (as many as its pool's connections), each running every kind. */
const crowdOf = (stores: readonly PgJobStore[]): Worker[] =>
  stores.flatMap((store, instance) =>
    Array.from({ length: 4 }, (_, index) => ({ store, owner: `engine-${instance}-${index}`, kinds: ['generate', 'trace'] })),
  );

/** The claim lock, as take_claim_lock (store/pg/migrations.ts) takes it: pg_locks shows the one-word key as objid. */
const CLAIM_LOCK = 0x5376_6a01;

/**
 * Six inserts with a claim (three through each store, overall limit 1, nothing else queued) sent
 * while another connection holds the claim lock: each must wait for it (answers when they did not),
 * and once it is let go, each must see what the one granted the lock before it committed. Answers
 * what they claimed.
 */
async function insertsBehindTheLock(stores: readonly PgJobStore[], url: string): Promise<JobRow[]> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock($1)', [CLAIM_LOCK]);
    const inserts = stores.flatMap((store, instance) =>
      [0, 1, 2].map((index) => store.insert(job(`behind-${instance}-${index}`, 'p', null, null), [], claimOf(`engine-${instance}`, 1))),
    );
    const waiting = async () =>
      (
        await holder.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted`,
          [CLAIM_LOCK],
        )
      ).rows[0].n;
    for (const deadline = Date.now() + 20_000; (await waiting()) < inserts.length;) {
      if (Date.now() > deadline) throw new Error(`${await waiting()} of ${inserts.length} inserts waited for the claim lock`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await holder.query('COMMIT');
    return (await Promise.all(inserts)).flatMap((inserted) => ('claimed' in inserted ? inserted.claimed : []));
  } finally {
    await holder.end();
  }
}

describe('PgJobStore: two instances over one database', () => {
  let a: PgJobStore;
  let b: PgJobStore;
  beforeEach(async () => {
    await emptyTables();
    [a, b] = dbs.map((db) => new PgJobStore(db));
  });

  it('claims each job once, never over a pool or the overall limit, each ordering key in order', async () => {
    // Only engine-a runs traces.
    const { claimedBy, violations } = await claimRace(
      [
        { store: a, owner: 'engine-a', kinds: ['generate', 'trace'] },
        { store: b, owner: 'engine-b', kinds: ['generate'] },
      ],
      dbs[0],
    );
    expect(violations).toEqual([]);
    expect(claimedBy.size).toBe(40);
    expect(await a.unfinished()).toEqual([]);
    // Both instances took part.
    expect(new Set(claimedBy.values())).toEqual(new Set(['engine-a', 'engine-b']));
  }, 60_000);

  it('serialises inserts and claims from every connection of both instances', async () => {
    const { claimedBy, violations } = await claimRace(crowdOf([a, b]), dbs[0]);
    expect(violations).toEqual([]);
    expect(claimedBy.size).toBe(40);
    expect(await a.unfinished()).toEqual([]);
  }, 60_000);

  it('makes an insert waiting for the claim lock see what the one before it committed', async () => {
    expect(await insertsBehindTheLock([a, b], url)).toHaveLength(1);
    expect((await a.unfinished()).map((row) => row.state).sort()).toEqual(['queued', 'queued', 'queued', 'queued', 'queued', 'running']);
  }, 60_000);

  it('lets exactly one of two concurrent adopters take each orphan over', async () => {
    const now = Date.now();
    for (let index = 0; index < 20; index += 1) await a.insert(job(`orphan-${index}`, 'p', null, null), []);
    await a.claim(claimOf('dead-engine', 100, now - 1));
    // Half of them reached their upstream: they resume (or end interrupted); the others are queued again.
    for (let index = 0; index < 20; index += 2) await a.markReachedUpstream(`orphan-${index}`, new Date().toISOString());
    const [foundA, foundB] = await Promise.all([a.orphans(now, () => false), b.orphans(now, () => false)]);
    expect(foundA).toHaveLength(20);
    const lease = (owner: string) => () => ({ owner, until: now + 60_000, at: new Date().toISOString() });
    const [byA, byB] = await Promise.all([
      a.adopt(foundA, lease('engine-a'), () => ({ action: 'resumed' })),
      b.adopt(foundB, lease('engine-b'), () => ({ action: 'resumed' })),
    ]);
    const winners = [...byA, ...byB].map((entry) => entry.row.id).sort();
    expect(winners).toEqual(foundA.map((row) => row.id).sort());
    const actions = [...byA, ...byB].map((entry) => entry.action);
    expect(actions.filter((action) => action === 'requeued')).toHaveLength(10);
    expect(actions.filter((action) => action === 'resumed')).toHaveLength(10);
    // Each resumed one is held by the one that adopted it.
    for (const { row } of byA.filter((entry) => entry.action === 'resumed'))
      expect(await b.find(row.id)).toMatchObject({ lease_owner: 'engine-a', state: 'running' });
    for (const { row } of byB.filter((entry) => entry.action === 'resumed'))
      expect(await a.find(row.id)).toMatchObject({ lease_owner: 'engine-b', state: 'running' });
    expect(await a.orphans(now, () => false)).toEqual([]);
  });

  it('keeps the overall and pool limits when instances insert with a claim at once', async () => {
    const inserts = Array.from({ length: 24 }, (_, index) =>
      (index % 2 ? a : b).insert(
        job(`burst-${index}`, index % 3 ? 'wide' : 'narrow', index % 3 ? 4 : 1, null),
        [],
        claimOf(index % 2 ? 'engine-a' : 'engine-b', 5),
      ),
    );
    const inserted = await Promise.all(inserts);
    const claimed: JobRow[] = inserted.flatMap((entry) => ('claimed' in entry ? entry.claimed : []));
    expect(new Set(claimed.map((row) => row.id)).size).toBe(claimed.length);
    expect(claimed.length).toBe(5);
    const held = await a.holders(Date.now());
    expect(held.reduce((sum, holder) => sum + holder.running, 0)).toBe(5);
    const rows = await a.unfinished();
    const running = rows.filter((row) => row.state === 'running');
    expect(running.filter((row) => row.pool === 'narrow')).toHaveLength(1);
    expect(running.filter((row) => row.pool === 'wide')).toHaveLength(4);
  });
});

describe('PgJobStore on a server whose default isolation is REPEATABLE READ', () => {
  let rrUrl: string;
  let rr: PgDatabase[];
  beforeAll(async () => {
    rrUrl = await postgres.createDatabase();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE "${new URL(rrUrl).pathname.slice(1)}" SET default_transaction_isolation = 'repeatable read'`);
    } finally {
      await admin.end();
    }
    rr = [openPgDatabase(rrUrl, { max: 4 }), openPgDatabase(rrUrl, { max: 4 })];
    await Promise.all(rr.map((db) => db.ready));
  }, 60_000);
  beforeEach(() => rr[0].query('TRUNCATE jobs, job_inputs RESTART IDENTITY'));
  afterAll(async () => {
    await Promise.all((rr ?? []).map((db) => db.close()));
  });

  it('runs every transaction of the store READ COMMITTED', async () => {
    const plain = new pg.Client({ connectionString: rrUrl });
    await plain.connect();
    try {
      // The server's default, as a connection without our settings sees it.
      expect((await plain.query('SHOW transaction_isolation')).rows).toEqual([{ transaction_isolation: 'repeatable read' }]);
      // The claim refuses a snapshot taken before its lock.
      await plain.query('BEGIN');
      await expect(plain.query(`SELECT * FROM claim_jobs('x', 0, 'at', 0, 1, '{generate}')`)).rejects.toThrow(/READ COMMITTED/);
      await plain.query('ROLLBACK');
    } finally {
      await plain.end();
    }
    expect(await rr[0].query('SHOW transaction_isolation')).toEqual([{ transaction_isolation: 'read committed' }]);
    expect(await rr[1].transaction(async (client) => (await client.query('SHOW transaction_isolation')).rows)).toEqual([
      { transaction_isolation: 'read committed' },
    ]);
  });

  it('makes an insert waiting for the claim lock see what the one before it committed', async () => {
    expect(
      await insertsBehindTheLock(
        rr.map((db) => new PgJobStore(db)),
        rrUrl,
      ),
    ).toHaveLength(1);
  }, 60_000);

  it('claims within the limits, in order, each job once', async () => {
    const { claimedBy, violations } = await claimRace(crowdOf(rr.map((db) => new PgJobStore(db))), rr[0]);
    expect(violations).toEqual([]);
    expect(claimedBy.size).toBe(40);
  }, 60_000);
});
