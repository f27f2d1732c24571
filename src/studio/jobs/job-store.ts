import type { JobState } from '../api/index.js';
import type { NewLoggedEvent } from '../store/repositories.js';

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
  /** The limit group the job counts in (its lane, else its kind) and that group's limit (null: none), fixed at submit. */
  pool: string;
  pool_limit: number | null;
  /** The job's time from its first start; its deadline is that start plus this (null: none). */
  budget_ms: number | null;
  /** 1 when the job's first start is its billing checkpoint (its first upstream call follows at once). */
  reaches_at_start: number;
  /** Status calls made so far (a parked job keeps its poll intervals). */
  polls: number;
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

/** A new job: what it is, and its claim policy (decided once, at submit, so a claim reads it from the row). */
export type NewJobRow = Pick<
  JobRow,
  | 'id'
  | 'kind'
  | 'lane'
  | 'model'
  | 'request'
  | 'created_at'
  | 'priority'
  | 'ordering_key'
  | 'fingerprint'
  | 'attempt'
  | 'retry_of'
  | 'pool'
  | 'pool_limit'
  | 'budget_ms'
  | 'reaches_at_start'
>;

/**
 * One claim pass, as data: the store claims in one statement what may start now, in queue order
 * (priority, then arrival; a due parked job keeps its place of arrival), within `overall` and each row's pool limit
 * (both counted over every holder), strict FIFO per ordering key, and of `kinds` only.
 */
export interface ClaimRequest {
  readonly owner: string;
  /** Now (ms since the epoch): parked jobs due by then are claimed; a first start's deadline counts from it. */
  readonly now: number;
  readonly leaseUntil: number;
  readonly overall: number;
  /** The kinds this holder runs; rows of other kinds are left to other holders. */
  readonly kinds: readonly string[];
}

export type Inserted = { readonly seq: number; readonly position: number; readonly claimed: JobRow[] } | { readonly existing: JobRow };

/** How a job ends: its state, its last phase, its result or error (JSON-able), and optionally the state it must still be in. */
export interface JobEnd {
  readonly state: JobState;
  readonly phase?: string;
  readonly result?: unknown;
  readonly error?: unknown;
  readonly from?: JobState;
  /** The job's terminal event (`done` or `error`), written with its end: see EndEvent. */
  readonly event?: EndEvent;
}

/**
 * A job's terminal event, written by the store in the same transaction as the job's end (the
 * outbox, studio/event-bus.ts): the row is appended to the studio's event log after every event
 * published before it, and only when the end is written; neither lands without the other, whatever
 * crashes. Once that has committed the store calls `published(seq)`, at once, and never otherwise.
 */
export interface EndEvent {
  readonly row: NewLoggedEvent;
  published(seq: number): void;
}

/** What becomes of an orphan once taken over and found to have reached its upstream: resumed, or ended with this error (and its event). */
export type OrphanVerdict =
  { readonly action: 'resumed' } | { readonly action: 'interrupted'; readonly error: unknown; readonly event?: EndEvent };

/** What became of an orphaned job this engine took over. */
export type Adopted =
  { readonly row: JobRow; readonly action: 'requeued' | 'resumed' } | { readonly row: JobRow; readonly action: 'interrupted' };

/** A process holding slots (`svc status` in team mode): how many jobs it holds, and when its latest lease runs out (ms since the epoch). */
export interface Holder {
  readonly owner: string;
  readonly running: number;
  readonly leaseExpiresAt: number;
}

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
  insert(row: NewJobRow, inputHashes: readonly string[], claim?: ClaimRequest): Promise<Inserted>;
  /** One claim pass (see ClaimRequest), atomic across holders; answers the rows as claimed, in queue order. */
  claim(request: ClaimRequest): Promise<JobRow[]>;
  /**
   * Parks a running job of `owner` until `next`: state `waiting`, its lease let go, so it holds no
   * slot and any holder's claim takes it when due. False when the job is no longer that owner's
   * running job, or a cancel was asked for it (it is not parked then).
   */
  park(id: string, owner: string, next: number, polls: number, at: string): Promise<boolean>;
  /** Claims one parked job now, whatever the limits (to cancel it); undefined when it is not parked. */
  take(id: string, owner: string, leaseUntil: number, at: string): Promise<JobRow | undefined>;
  /** When the earliest parked job is due (ms since the epoch), or null when none is parked. */
  nextWake(): Promise<number | null>;
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
  /** Rows holding a slot whose lease ran out, or whose owner `isDead` says is gone (asked once per owner); parked rows are no one's. */
  orphans(now: number, isDead: (owner: string) => boolean): Promise<JobRow[]>;
  /**
   * Takes orphans over, atomically: each one whose take-over this process
   * wins is queued again if it never reached its upstream, else `verdict`
   * says whether it resumes or ends `interrupted` with an error.
   */
  adopt(rows: readonly JobRow[], lease: (row: JobRow) => Lease, verdict: (row: JobRow) => OrphanVerdict): Promise<Adopted[]>;
  /** The owners holding at least one lease unexpired at `now`, each with how many slots it holds so, by owner. */
  holders(now: number): Promise<Holder[]>;
  setPhase(id: string, phase: string, at: string): Promise<void>;
  /** running (a step is under way) or waiting in place, still holding its slot (until `next`, the next status call). */
  setActivity(id: string, state: 'running' | 'waiting', next: number | null, at: string): Promise<void>;
  /** The checkpoint: the job's first billable upstream call is about to be sent. */
  markReachedUpstream(id: string, at: string): Promise<void>;
  setOperation(id: string, operation: unknown, operationId: string, state: string | null, at: string): Promise<void>;
  setUpstreamState(id: string, state: string | null, at: string): Promise<void>;
  setCancelConfirmed(id: string, confirmed: boolean): Promise<void>;
  /** Asks the process that runs a job to cancel it (it looks at each heartbeat). */
  requestCancel(id: string, at: string): Promise<boolean>;
  cancelRequested(owner: string): Promise<string[]>;
  /** Ends a job (and appends its `end.event`); false when it had already ended, or (with `from`) was no longer in that state. */
  finish(id: string, end: JobEnd, at: string): Promise<boolean>;
  inputHashes(id: string): Promise<string[]>;
  /** Whether any job (of any state) holds the input file of this hash. */
  inputHeld(hash: string): Promise<boolean>;
  /** Removes jobs that ended before the cutoff (ISO time) and which input files they held; answers how many. */
  sweepFinished(cutoff: string): Promise<number>;
}
