import type pg from 'pg';
import type { FlowWorkflow } from '../../api/flow.js';
import { rowOf, summaryOf, WITHIN_BOUNDS, workflowOf, type WorkflowRow } from '../flow-workflows.js';
import type { FlowWorkflowRepository, FlowWorkflowSummary } from '../repositories.js';
import type { PgDatabase } from './database.js';

// The flow lane's workflows in PostgreSQL. The port's reads are synchronous (the catalog resolves
// models synchronously), so they answer from a copy in memory: loaded by `ready`, and loaded again
// whenever any instance writes (each write NOTIFYs `flow_workflows` as it commits; every instance
// LISTENs on a connection of its own). A write answers once it is committed and this copy has been
// loaded again after it, so a read that follows sees it. Rows are read as the SQLite store reads them
// (store/flow-workflows.ts): one over the stored bounds is left out, one that does not parse is skipped.

const CHANNEL = 'flow_workflows';
/** How long to wait before listening again when the listening connection is lost. */
const RELISTEN_MS = 1_000;

interface Copy {
  readonly summaries: readonly FlowWorkflowSummary[];
  readonly workflows: ReadonlyMap<string, FlowWorkflow>;
}

export class PgFlowWorkflowRepository implements FlowWorkflowRepository {
  private copy: Copy = { summaries: [], workflows: new Map() };
  /** The load running now, and whether another must follow it (a change was announced meanwhile). */
  private loading: Promise<void> | undefined;
  private stale = false;
  private listener: pg.Client | undefined;
  private closed = false;
  private relisten: NodeJS.Timeout | undefined;
  /** Settles once this instance listens and holds its first copy (rejects when the database cannot be read). */
  readonly ready: Promise<void>;

  constructor(private readonly database: PgDatabase) {
    this.ready = this.listen().then(() => this.reload());
    this.ready.catch(() => {}); // reported to whoever awaits it
  }

  list(): FlowWorkflow[] {
    return [...this.copy.workflows.values()];
  }

  summaries(): FlowWorkflowSummary[] {
    return [...this.copy.summaries];
  }

  get(id: string): FlowWorkflow | undefined {
    return this.copy.workflows.get(id);
  }

  async insert(workflow: FlowWorkflow): Promise<boolean> {
    const row = rowOf(workflow);
    const inserted = await this.write(
      `INSERT INTO flow_workflows (id, label, origin, media_kind, graph, bind, params, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING RETURNING id`,
      valuesOf(row),
    );
    return inserted.length > 0;
  }

  async replace(workflow: FlowWorkflow): Promise<FlowWorkflow> {
    const [stored] = await this.write<WorkflowRow>(
      `INSERT INTO flow_workflows (id, label, origin, media_kind, graph, bind, params, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (id) DO UPDATE SET label = EXCLUDED.label, origin = EXCLUDED.origin, media_kind = EXCLUDED.media_kind,
         graph = EXCLUDED.graph, bind = EXCLUDED.bind, params = EXCLUDED.params, updated_at = EXCLUDED.updated_at
       RETURNING *`,
      valuesOf(rowOf(workflow)),
    );
    return workflowOf(stored) ?? workflow;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.write('DELETE FROM flow_workflows WHERE id = $1 RETURNING id', [id])).length > 0;
  }

  /** Stops listening (the database stays open: its owner closes it). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.relisten);
    await this.ready.catch(() => {});
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => {});
  }

  /** A write and its notice in one transaction (the notice goes out as it commits), then this copy loaded again. */
  private async write<R extends pg.QueryResultRow>(text: string, values: readonly unknown[]): Promise<R[]> {
    const rows = await this.database.transaction(async (client) => {
      const result = await client.query<R>(text, values as unknown[]);
      if (result.rows.length > 0) await client.query('SELECT pg_notify($1, $2)', [CHANNEL, '']);
      return result.rows;
    });
    // The write is durable: a failed load does not make it fail (the notice's load, or the next write's, catches up).
    await this.reload().catch(() => {});
    return rows;
  }

  /**
   * Loads the copy again, after every change committed before this call: when a load is running (it
   * may have read before the change), another follows it. Loads run one at a time, so a newer copy is
   * never replaced by an older one.
   */
  private reload(): Promise<void> {
    this.stale = true;
    this.loading ??= (async () => {
      try {
        while (this.stale) {
          this.stale = false;
          this.copy = copyOf(await this.database.query<WorkflowRow>(`SELECT * FROM flow_workflows WHERE ${WITHIN_BOUNDS} ORDER BY id`));
        }
      } finally {
        this.loading = undefined;
      }
    })();
    return this.loading;
  }

  /** LISTENs on a connection of its own; a lost one is replaced (and the copy loaded again, since notices may have been missed). */
  private async listen(): Promise<void> {
    const client = await this.database.connect();
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.listener = client;
    client.on('notification', (message) => {
      if (message.channel === CHANNEL) this.reload().catch(() => {});
    });
    client.once('end', () => {
      if (this.listener !== client || this.closed) return;
      this.listener = undefined;
      const again = () => {
        if (this.closed) return;
        this.listen()
          .then(() => this.reload())
          .catch(() => (this.relisten = setTimeout(again, RELISTEN_MS)));
      };
      this.relisten = setTimeout(again, RELISTEN_MS);
    });
    await client.query(`LISTEN ${CHANNEL}`);
  }
}

const valuesOf = (row: WorkflowRow): unknown[] => [
  row.id,
  row.label,
  row.origin,
  row.media_kind,
  row.graph,
  row.bind,
  row.params,
  row.created_at,
  row.updated_at,
];

function copyOf(rows: readonly WorkflowRow[]): Copy {
  const workflows = new Map<string, FlowWorkflow>();
  const summaries: FlowWorkflowSummary[] = [];
  for (const row of rows) {
    const summary = summaryOf(row);
    if (summary) summaries.push(summary);
    const workflow = workflowOf(row);
    if (workflow) workflows.set(workflow.id, workflow);
  }
  return { summaries, workflows };
}
