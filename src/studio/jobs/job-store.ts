import type { JobState } from '../api/index.js';

// The job engine's port to its storage: every read and write of the durable
// queue, asynchronous so that a store across the network (PostgreSQL) is a
// second implementation, not a rewrite. The first one is SQLite
// (store/jobs.ts). The engine decides; a store only reads and writes, and
// makes each decision that picks who runs a job (a claim, a take-over)
// atomic, so several processes sharing it never both win the same job.

export interface JobRow {
  /** The order jobs were accepted in (FIFO within a priority). */
  seq: number;
  id: string;
  kind: string;
  lane: string | null;
  model: string | null;
  state: JobState;
  phase: string | null;
  priority: number;
  ordering_key: string | null;
  fingerprint: string | null;
  attempt: number;
  retry_of: string | null;
  lease_owner: string | null;
  lease_expires_at: number | null;
  deadline_at: number | null;
  next_check_at: number | null;
  reached_upstream: number;
  operation: string | null;
  upstream_operation_id: string | null;
  upstream_state: string | null;
  cancel_requested: number;
  cancel_confirmed: number | null;
  request: string;
  result: string | null;
  error: string | null;
  created_at: string;
  started_at: string | null;
  updated_at: string;
  finished_at: string | null;
}

export type NewJobRow = Pick<
  JobRow,
  'id' | 'kind' | 'lane' | 'model' | 'request' | 'created_at' | 'priority' | 'ordering_key' | 'fingerprint' | 'attempt' | 'retry_of'
>;

/** What a claim writes: who holds the job, until when, and the deadline it keeps from its first start. */
export interface Claim {
  readonly owner: string;
  readonly leaseUntil: number;
  readonly at: string;
  readonly deadline: number | null;
  /** The job's first upstream call follows at once: from now a crash must not run it again. */
  readonly reachesUpstream: boolean;
}

/** Limits of one claim pass: overall, and for a lane (Infinity when it has none). Called inside the store's transaction. */
export interface ClaimLimits {
  readonly overall: number;
  laneLimit(lane: string | null): number;
  /** Whether this process will run a job of that kind and lane now (e.g. it has the handler). */
  accepts(row: JobRow): boolean;
  /** The claim's fields for that row. */
  claim(row: JobRow): Claim;
}

export type Inserted = { readonly seq: number; readonly position: number; readonly claimed: JobRow[] } | { readonly existing: JobRow };

/** How a job ends: its state, its last phase, its result or error (JSON-able), and optionally the state it must still be in. */
export interface JobEnd {
  readonly state: JobState;
  readonly phase?: string;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly from?: JobState;
}

/** What becomes of an orphan once taken over and found to have reached its upstream: resumed, or ended with this error. */
export type OrphanVerdict = { readonly action: 'resumed' } | { readonly action: 'interrupted'; readonly error: unknown };

/** What became of an orphaned job this engine took over. */
export type Adopted =
  { readonly row: JobRow; readonly action: 'requeued' | 'resumed' } | { readonly row: JobRow; readonly action: 'interrupted' };

/** The new lease of a job taken over. */
export interface Lease {
  readonly owner: string;
  readonly until: number;
  readonly at: string;
}

export interface JobStore {
  /** False once closed (a job that outlived shutdown finds nothing to record). */
  readonly open: boolean;
  /**
   * Inserts a queued job and the input files it holds, then (given limits) a
   * claim pass, atomically. Answers its place and what the pass claimed (the
   * job itself when a slot was free), or the row that already has the id.
   */
  insert(row: NewJobRow, inputHashes: readonly string[], limits?: ClaimLimits): Promise<Inserted>;
  /** Claims what may start now, in queue order, within the limits (counted over every process); answers the rows as claimed. */
  claim(limits: ClaimLimits): Promise<JobRow[]>;
  find(id: string): Promise<JobRow | undefined>;
  /** Every attempt of a job, the first one first (`root` is the first attempt's id). */
  attempts(root: string): Promise<JobRow[]>;
  unfinished(): Promise<JobRow[]>;
  /** Jobs that ended at or after `since` (ISO time), the newest end first, at most `limit`. */
  finishedSince(since: string, limit: number): Promise<JobRow[]>;
  /** 1 for the next job to start, 2 for the one after, ... */
  position(row: Pick<JobRow, 'priority' | 'seq'>): Promise<number>;
  renewLeases(owner: string, until: number): Promise<void>;
  /** A graceful stop: the jobs left unfinished can be taken over at once by the next process. */
  releaseLeases(owner: string): Promise<void>;
  /** Active rows whose lease ran out, or whose owner `isDead` says is gone (asked once per owner). */
  orphans(now: number, isDead: (owner: string) => boolean): Promise<JobRow[]>;
  /**
   * Takes orphans over, atomically: each one whose take-over this process
   * wins is queued again if it never reached its upstream, else `verdict`
   * says whether it resumes or ends `interrupted` with an error.
   */
  adopt(rows: readonly JobRow[], lease: (row: JobRow) => Lease, verdict: (row: JobRow) => OrphanVerdict): Promise<Adopted[]>;
  setPhase(id: string, phase: string, at: string): Promise<void>;
  /** running (a step is under way) or waiting (until `next`, the next status call). */
  setActivity(id: string, state: 'running' | 'waiting', next: number | null, at: string): Promise<void>;
  /** The checkpoint: the job's first billable upstream call is about to be sent. */
  markReachedUpstream(id: string, at: string): Promise<void>;
  setOperation(id: string, operation: unknown, operationId: string, state: string | null, at: string): Promise<void>;
  setUpstreamState(id: string, state: string | null, at: string): Promise<void>;
  setCancelConfirmed(id: string, confirmed: boolean): Promise<void>;
  /** Asks the process that runs a job to cancel it (it looks at each heartbeat). */
  requestCancel(id: string, at: string): Promise<boolean>;
  cancelRequested(owner: string): Promise<string[]>;
  /** Ends a job; false when it had already ended, or (with `from`) was no longer in that state. */
  finish(id: string, end: JobEnd, at: string): Promise<boolean>;
  inputHashes(id: string): Promise<string[]>;
  /** Whether any job (of any state) holds the input file of this hash. */
  inputHeld(hash: string): Promise<boolean>;
  /** Removes jobs that ended before the cutoff (ISO time) and which input files they held; answers how many. */
  sweepFinished(cutoff: string): Promise<number>;
}
