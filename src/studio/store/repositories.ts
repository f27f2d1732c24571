import type { AgentItemState } from '../api/index.js';
import type { FlowWorkflow } from '../api/flow.js';
import type { AgentSessionRow, AgentSessionUpdate, AgentTurnRow, AgentTurnUpdate, NewAgentTurnRow } from './agent.js';
import type { AssetFilter, AssetRow, GroupPosition, ItemPosition, NewAssetRow, SessionGroupRow } from './assets.js';
import type { NodeRow, NodeView } from './nodes.js';
import type { GraphReplacement, SessionListRow, SessionPosition, SessionRow } from './sessions.js';

// The ports of the studio's persistent state (besides the job queue, jobs/job-store.ts, and asset
// bytes, media/asset-store.ts): one repository per kind of record, asynchronous so that a
// networked database is a second implementation, not a rewrite. The first implementation is the
// SQLite file (store/sqlite-store.ts); each port's contract suite is test/store/contracts/. A unit
// of work that must be atomic is one call here (or a callback the call runs inside its
// transaction): callbacks are synchronous and pure, they see the current row and answer the write.

/** History's rows: one per saved asset, live or tombstoned (store/assets.ts says what each field is). */
export interface AssetRepository {
  /** A new row; refused (throws) when the file name is taken. */
  insert(row: NewAssetRow): Promise<void>;
  /** The row of a file name, live or tombstoned, with its graph session's title now. */
  find(filename: string): Promise<AssetRow | undefined>;
  /** For each candidate, in order: whether a row (tombstones included) has its file name or its thumbnail name. One read for all. */
  takenNames(candidates: ReadonlyArray<{ readonly filename: string; readonly thumbnail: string }>): Promise<boolean[]>;
  /** The live row whose thumbnail has this name. */
  findLiveByThumbnail(thumbnail: string): Promise<AssetRow | undefined>;
  /** Live rows, newest first by (created_at, id), after a position, narrowed by the filter (its `search` aside). */
  listLive(options: { readonly limit: number; readonly after?: ItemPosition; readonly filter?: AssetFilter }): Promise<AssetRow[]>;
  /** The newest live rows of one title group: title-only rows of that title and the rows of its graph sessions. */
  listGroupItems(options: {
    readonly title: string | null;
    readonly sessionIds: readonly string[];
    readonly limit: number;
  }): Promise<AssetRow[]>;
  /**
   * Live rows whose prompt or revised prompt holds every word of `text` (a word of two characters
   * or more also matches the words it begins; case and accents folded), narrowed by the filter,
   * newest first by id, after the row `afterId`. No word in the text: no row.
   */
  search(options: {
    readonly text: string;
    readonly limit: number;
    readonly afterId?: number;
    readonly filter?: AssetFilter;
  }): Promise<AssetRow[]>;
  /** Title groups over the live rows, most recently active first, after a position. */
  listSessionGroups(options: { readonly limit: number; readonly after?: GroupPosition }): Promise<SessionGroupRow[]>;
  /** Tombstones a live row; false when there was none. */
  markDeleted(filename: string, deletedAt: string): Promise<boolean>;
  /** Brings a tombstone back; false when there was none. */
  markRestored(filename: string): Promise<boolean>;
  /** An image that did not decode: its thumbnail `failed` and the row tombstoned, in one write. */
  markBroken(filename: string, deletedAt: string): Promise<void>;
  setThumbnailState(filename: string, state: AssetRow['thumbnail_state']): Promise<void>;
  /** Live rows whose thumbnail is still to be made, oldest first. */
  pendingThumbnails(): Promise<AssetRow[]>;
  /** Tombstones deleted after `since`, newest deletion first (then newest id), at most `limit`. */
  deletedSince(since: string, limit: number): Promise<AssetRow[]>;
  /** Tombstones deleted at or before the cutoff, oldest deletion first. */
  tombstonesDeletedBefore(cutoff: string): Promise<AssetRow[]>;
  /** Removes a tombstone's row (never a live one); false when there was none. */
  removeTombstone(filename: string): Promise<boolean>;
  /** Removes a row, live or not (a permanent delete); false when there was none. */
  remove(filename: string): Promise<boolean>;
}

/** Graph sessions: their snapshot and its version. A deleted session keeps its row (title, deleted_at). */
export interface GraphSessionRepository {
  insert(row: Omit<SessionRow, 'deleted_at'>): Promise<void>;
  /** A session's row, live or deleted. */
  find(id: string): Promise<SessionRow | undefined>;
  /** Live sessions, newest first by (created_at, id), after a position. */
  listLive(options: { readonly limit: number; readonly after?: SessionPosition }): Promise<SessionListRow[]>;
  /** Renames a live session; false when there is none. */
  rename(id: string, title: string, at: string): Promise<boolean>;
  /** Deletes a live session (its graph becomes `emptyGraph`); false when there is none. */
  markDeleted(id: string, emptyGraph: string, at: string): Promise<boolean>;
  /**
   * Compare-and-swap of a live session's graph, atomic against every other writer: `next` sees the
   * current row and answers the new graph's JSON, or undefined to keep it. The version goes up by one.
   */
  replaceGraph(id: string, next: (current: SessionRow) => string | undefined, at: string): Promise<GraphReplacement>;
}

/** Nodes: the record of how a node's image was made; never changed once written. */
export interface NodeRepository {
  /** A node with its session's title and state and its image's state; undefined when unknown. */
  find(id: string): Promise<NodeView | undefined>;
  /**
   * Writes a node and, with `graph`, its session's graph replaced as `replaceGraph` does, in one
   * unit of work: the node never lands without the graph change it asked for, nor the change without it.
   * Answers the graph's replacement (undefined without `graph`).
   */
  record(
    row: NodeRow,
    graph?: { readonly sessionId: string; readonly next: (current: SessionRow) => string | undefined },
  ): Promise<GraphReplacement | undefined>;
}

/** A change of an agent session, made from what it is now (AgentRepository.changeSession). */
export interface AgentSessionChange {
  readonly session: AgentSessionUpdate;
  /** A turn's fields written in the same unit of work (a command's plan stored with what it changed). */
  readonly turn?: { readonly id: string; readonly fields: AgentTurnUpdate };
}

/** Agent Mode: sessions and their turns (ordered by when they were recorded). */
export interface AgentRepository {
  insertSession(row: AgentSessionRow): Promise<void>;
  findSession(id: string): Promise<AgentSessionRow | undefined>;
  /** The newest sessions first (created_at, then id). */
  listSessions(limit: number): Promise<AgentSessionRow[]>;
  /** Removes a session and its turns together; false when there was none. */
  deleteSession(id: string): Promise<boolean>;
  /**
   * A session's change made from what it is now, atomic against every other writer: `change` sees
   * the row and answers what to write, or undefined to leave it (it may throw: nothing is written).
   * Answers the row after, or undefined when there is no session.
   */
  changeSession(id: string, change: (row: AgentSessionRow) => AgentSessionChange | undefined): Promise<AgentSessionRow | undefined>;
  /** A new turn, queued; false (nothing written) when a turn with that id exists. */
  insertTurn(row: NewAgentTurnRow): Promise<boolean>;
  /** Removes a turn still queued on the job `jobId`; false otherwise. */
  deleteQueuedTurn(id: string, jobId: string): Promise<boolean>;
  findTurn(id: string): Promise<AgentTurnRow | undefined>;
  /** A session's turns in the order they were recorded. */
  listTurns(sessionId: string): Promise<AgentTurnRow[]>;
  /** Writes a turn's fields; with `fromStates`, only while it is in one of them. False when nothing was written. */
  updateTurn(id: string, fields: AgentTurnUpdate, fromStates?: readonly AgentItemState[]): Promise<boolean>;
  /** How many turns of the session are in each state (states with none are absent). */
  countTurns(sessionId: string): Promise<Partial<Record<AgentItemState, number>>>;
}

/** A workflow without its graph: what catalog reads (models, lane status) need. */
export type FlowWorkflowSummary = Omit<FlowWorkflow, 'graph'>;

/**
 * The flow lane's registered workflows. A record that no longer reads as a workflow is skipped,
 * never answered half-read. Reads are synchronous: the catalog resolves a lane's models (flow's
 * workflows among them, catalog/models.ts laneModels) synchronously, so a networked store reads a
 * copy it keeps in memory. Writes answer once they are durable, and every read after sees them.
 */
export interface FlowWorkflowRepository {
  /** Every readable workflow, by id. */
  list(): FlowWorkflow[];
  /** Every readable workflow without its graph, by id; one over the stored bounds is left out without being loaded. */
  summaries(): FlowWorkflowSummary[];
  get(id: string): FlowWorkflow | undefined;
  /** Inserts; false when the id is taken. */
  insert(workflow: FlowWorkflow): Promise<boolean>;
  /** Inserts or replaces (the first registration's `createdAt` stays); answers the stored workflow. */
  replace(workflow: FlowWorkflow): Promise<FlowWorkflow>;
  delete(id: string): Promise<boolean>;
}

/** One event as the log holds it: its position and its replay copy. */
export interface LoggedEvent {
  /** The event's position: global to the database, increasing in commit order, never reused. */
  readonly seq: number;
  /** The replay copy's JSON without `id` (`{"topic":…,"event":…,…}`; transient fields never reach the log). */
  readonly data: string;
  /** The id the event's JSON carries instead of its cursor (a saved message's), when it has one. */
  readonly payloadId?: string;
}

/** What the log holds after a position, read at one moment. */
export interface EventLogPage {
  /** The events after the position asked for, oldest first, at most the limit asked for. */
  readonly events: readonly LoggedEvent[];
  /** Seq of the oldest event held; undefined when none is. */
  readonly oldest: number | undefined;
  /** Seq of the newest event ever appended (0 before the first), held or trimmed. */
  readonly newest: number;
}

/** An event to append: its replay copy (see LoggedEvent). */
export type NewLoggedEvent = Omit<LoggedEvent, 'seq'>;

/** What every event log has: its id, its reads, its retention. */
interface EventLogBase {
  /** Names this log, for good (chosen when its database was made): a cursor of another log is told apart. */
  readonly logId: string;
  readonly dense: boolean;
  /**
   * The events after `seq` (at most `limit`, oldest first), with the bounds held, read at one moment.
   * Every event appended before the call is in it (a row still pending is written first).
   */
  after(seq: number, limit: number): Promise<EventLogPage>;
  /** Removes every event but the newest `keep`; answers how many it removed. Seqs are never reused. */
  trim(keep: number): Promise<number>;
  /** Writes what is still pending and gives back what this process holds (shutdown); reads and appends still work. */
  close(): Promise<void>;
}

/**
 * A log of one process's studio (SQLite): it gives each event its position at once. Synchronous,
 * because publishing is: the event's id is answered at once and the live fan-out follows in
 * process. The row may be written a little later (SQLite: within the turn of the event loop), but
 * every read of this log sees it, and its seq is never given to another event, whatever crashes.
 */
export interface ImmediateEventLog extends EventLogBase {
  /** The default: a log that says nothing gives positions at once. */
  readonly positions?: 'immediate';
  /** Appends an event and answers its seq. */
  append(event: NewLoggedEvent): number;
}

/**
 * A log shared by several studios (PostgreSQL): positions are given at commit, in commit order, so a
 * reader that has seen position P has seen every event below it, whichever studio appended it. An
 * append answers its seq once committed; live events come from `follow`, every studio's in one
 * order, its own included (the bus delivers from there, so every instance sends the same ids in
 * the same order).
 */
export interface CommittedEventLog extends EventLogBase {
  readonly positions: 'at-commit';
  /** Appends an event (written with the others of this turn of the event loop); answers its seq once committed. */
  append(event: NewLoggedEvent): Promise<number>;
  /**
   * Calls `onEvents` with every event committed after the position `started` answers (following
   * starts as it is called, connecting takes a moment), in position order, each once, whichever
   * studio appended it. An append's promise settles before its event is passed here. `onLost(count)`
   * is told of other studios' events trimmed before they could be read (a follower more than the
   * retention behind; its own it still passes). One follower at a time.
   */
  follow(onEvents: (events: readonly LoggedEvent[]) => void, onLost: (count: number) => void): EventLogFollowing;
}

export interface EventLogFollowing {
  /** Settles with the position following starts after (0 when stopped before it started). */
  readonly started: Promise<number>;
  stop(): void;
}

/**
 * The studio's events, durable: the replay side of its EventBus (a cursor stays valid across
 * restarts). Positions are one sequence per database: the id of an event is `<logId>-<seq>`.
 * `dense`: each append takes the next seq (SQLite: positions skip only at a crash, by at most a
 * reserved block; PostgreSQL: they never skip), so a gap notice can count what was missed; a log
 * whose sequence skips freely says false, and the bus then leaves `missed` out.
 */
export type EventLog = ImmediateEventLog | CommittedEventLog;

/** Every repository of the studio's state, over one database. */
export interface StudioStore {
  readonly assets: AssetRepository;
  readonly graphSessions: GraphSessionRepository;
  readonly nodes: NodeRepository;
  readonly agent: AgentRepository;
  readonly flowWorkflows: FlowWorkflowRepository;
  /** The event log (the studio's EventBus keeps its replay copies there: studio/event-bus.ts). */
  readonly events: EventLog;
  /** Bytes the database takes where it is kept (storage status). */
  size(): Promise<number>;
}
