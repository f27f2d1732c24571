import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ClaimRequest, JobRow, NewJobRow } from '../../src/studio/jobs/job-store.js';
import { openPgDatabase, type PgDatabase } from '../../src/studio/store/pg/database.js';
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
beforeAll(async () => {
  postgres = await startPostgres();
  const url = await postgres.createDatabase();
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
  return { store: new PgJobStore(dbs[0]), close: async () => {} };
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

/**
 * Claim passes at once from every connection of every instance, round after round over 30 queued
 * jobs (three pools; every third job of one ordering key), some of what holds a slot ended between
 * rounds, until every job ran. Answers what broke the policy: a job claimed twice, a pool or the
 * overall limit exceeded, a job of the key started before the one ahead of it ended.
 */
async function claimStorm(stores: readonly PgJobStore[], probe: PgDatabase): Promise<string[]> {
  const jobs = Array.from({ length: 30 }, (_, index) =>
    job(
      `storm-${String(index).padStart(2, '0')}`,
      `p${(index % 3) + 1}`,
      POOL_LIMITS[`p${(index % 3) + 1}`],
      index % 3 === 0 ? 'key' : null,
    ),
  );
  for (const row of jobs) await stores[0].insert(row, []);
  const violations: string[] = [];
  const claimed = new Set<string>();
  for (let round = 0; claimed.size < jobs.length && round < 200; round += 1) {
    const passes = await Promise.all(
      stores.flatMap((store, instance) => Array.from({ length: 4 }, () => store.claim(claimOf(`engine-${instance}`, OVERALL)))),
    );
    for (const row of passes.flat()) {
      if (claimed.has(row.id)) violations.push(`${row.id} claimed twice`);
      claimed.add(row.id);
    }
    const running = (await stores[0].unfinished()).filter((row) => row.state === 'running');
    if (running.length > OVERALL) violations.push(`${running.length} held > ${OVERALL} overall`);
    for (const [pool, limit] of Object.entries(POOL_LIMITS)) {
      const held = running.filter((row) => row.pool === pool).length;
      if (held > limit) violations.push(`${pool} held ${held} > ${limit}`);
    }
    const [{ ahead }] = await probe.query<{ ahead: number }>(
      `SELECT COUNT(*) AS ahead FROM jobs j WHERE j.ordering_key = 'key' AND j.state = 'running'
         AND EXISTS (SELECT 1 FROM jobs k WHERE k.ordering_key = 'key' AND k.seq < j.seq AND k.finished_at IS NULL)`,
    );
    if (ahead > 0) violations.push(`a job of the key started before the one ahead of it ended`);
    for (const row of running.filter((_, index) => index % 2 === round % 2))
      await stores[0].finish(row.id, { state: 'succeeded' }, new Date().toISOString());
  }
  if (claimed.size < jobs.length) violations.push(`only ${claimed.size} of ${jobs.length} claimed`);
  return violations;
}

describe('PgJobStore: two instances over one database', () => {
  let a: PgJobStore;
  let b: PgJobStore;
  beforeEach(async () => {
    await emptyTables();
    [a, b] = dbs.map((db) => new PgJobStore(db));
  });

  it('claims each job once, never over a pool or the overall limit, each ordering key in order', async () => {
    const limitsOf = POOL_LIMITS;
    // 40 jobs over three pools; every fourth shares one of three ordering keys; every fifth is a trace, which only engine-a runs.
    const jobs = Array.from({ length: 40 }, (_, index) => {
      const pool = ['p1', 'p2', 'p3'][index % 3];
      const row = job(`job-${String(index).padStart(2, '0')}`, pool, limitsOf[pool], index % 4 === 0 ? `key-${index % 3}` : null);
      return index % 5 === 0 ? { ...row, kind: 'trace' } : row;
    });
    // 16 are queued before the instances start; each submits 12 more as it claims (a submit claims as it inserts).
    for (const row of jobs.slice(0, 16)) await a.insert(row, []);
    const probe = dbs[0];
    const claimedBy = new Map<string, string>();
    const violations: string[] = [];
    /** What holds a slot now, against the limits; each claimed row once, after the jobs of its key before it ended. */
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
      for (const { pool, n } of held) if (n > limitsOf[pool]) violations.push(`${pool} held ${n} > ${limitsOf[pool]}`);
      const total = held.reduce((sum, { n }) => sum + n, 0);
      if (total > OVERALL) violations.push(`${total} held > ${OVERALL} overall`);
    };
    /** One instance: submits its jobs and claims in turns, checks after each, ends what it claimed a little later; until all 40 ran. */
    const instance = async (store: PgJobStore, owner: string, kinds: string[], submits: NewJobRow[]) => {
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
    await Promise.all([
      instance(a, 'engine-a', ['generate', 'trace'], jobs.slice(16, 28)),
      instance(b, 'engine-b', ['generate'], jobs.slice(28)),
    ]);
    expect(violations).toEqual([]);
    expect(claimedBy.size).toBe(40);
    expect(await a.unfinished()).toEqual([]);
    // Both instances took part.
    expect(new Set(claimedBy.values())).toEqual(new Set(['engine-a', 'engine-b']));
  }, 60_000);

  it('serialises claim passes from every connection of both instances: limits, FIFO per key, each job once', async () => {
    expect(await claimStorm([a, b], dbs[0])).toEqual([]);
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
  let url: string;
  let rr: PgDatabase[];
  beforeAll(async () => {
    url = await postgres.createDatabase();
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query(`ALTER DATABASE "${new URL(url).pathname.slice(1)}" SET default_transaction_isolation = 'repeatable read'`);
    } finally {
      await admin.end();
    }
    rr = [openPgDatabase(url, { max: 4 }), openPgDatabase(url, { max: 4 })];
    await Promise.all(rr.map((db) => db.ready));
  }, 60_000);
  afterAll(async () => {
    await Promise.all((rr ?? []).map((db) => db.close()));
  });

  it('runs every transaction of the store READ COMMITTED', async () => {
    const plain = new pg.Client({ connectionString: url });
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

  it('claims within the limits, in order, each job once', async () => {
    expect(
      await claimStorm(
        rr.map((db) => new PgJobStore(db)),
        rr[0],
      ),
    ).toEqual([]);
  }, 60_000);
});
