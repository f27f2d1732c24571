import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { FLOW_WORKFLOW_LIMITS, flowBind, flowParam, flowWorkflow, type FlowWorkflow } from '../api/flow.js';
import type { StudioDatabase } from './database.js';
import type { FlowWorkflowRepository } from './repositories.js';

// The flow_workflows table (migration 13): the flow lane's registered
// workflows, graph, bindings and params as JSON. A row that no longer reads
// as a workflow (edited by hand, written by a newer build) is skipped, never
// answered half-read. So is a row over FLOW_WORKFLOW_LIMITS (an older build
// took any size): its size is read from the row's header (octet_length),
// never by loading it. Catalog reads (models, lane status) take summaries,
// which leave the graph column unread. SQL stays here, behind these functions.

/** A workflow without its graph: what the model catalog and the lane status need. */
export type { FlowWorkflowSummary } from './repositories.js';
import type { FlowWorkflowSummary } from './repositories.js';

export interface WorkflowRow {
  id: string;
  label: string;
  origin: string;
  media_kind: string;
  graph: string;
  bind: string;
  params: string;
  created_at: number;
  updated_at: number;
}

export type SummaryRow = Omit<WorkflowRow, 'graph'>;

const SUMMARY_COLUMNS = 'id, label, origin, media_kind, bind, params, created_at, updated_at';
/** Rows within the bounds (sizes read from the record header, the values not loaded): others are never parsed. */
export const WITHIN_BOUNDS = `octet_length(graph) <= ${FLOW_WORKFLOW_LIMITS.maxGraphBytes} AND octet_length(params) <= ${FLOW_WORKFLOW_LIMITS.maxParamsBytes} AND octet_length(bind) <= 65536`;

const flowSummary = lazy(() =>
  flowWorkflow.omit({ graph: true }).extend({ bind: flowBind, params: z.array(flowParam).max(FLOW_WORKFLOW_LIMITS.maxParams) }),
);

export function summaryOf(row: SummaryRow): FlowWorkflowSummary | undefined {
  try {
    const parsed = flowSummary.safeParse({
      id: row.id,
      label: row.label,
      origin: row.origin,
      mediaKind: row.media_kind,
      bind: JSON.parse(row.bind),
      params: JSON.parse(row.params),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function workflowOf(row: WorkflowRow): FlowWorkflow | undefined {
  try {
    const parsed = flowWorkflow.safeParse({
      id: row.id,
      label: row.label,
      origin: row.origin,
      mediaKind: row.media_kind,
      graph: JSON.parse(row.graph),
      bind: JSON.parse(row.bind),
      params: JSON.parse(row.params),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    });
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export const rowOf = (workflow: FlowWorkflow): WorkflowRow => ({
  id: workflow.id,
  label: workflow.label,
  origin: workflow.origin,
  media_kind: workflow.mediaKind,
  graph: JSON.stringify(workflow.graph),
  bind: JSON.stringify(workflow.bind),
  params: JSON.stringify(workflow.params),
  created_at: workflow.createdAt,
  updated_at: workflow.updatedAt,
});

export class SqliteFlowWorkflowRepository implements FlowWorkflowRepository {
  private readonly statements;

  constructor(db: StudioDatabase) {
    this.statements = {
      all: db.prepare<[], WorkflowRow>(`SELECT * FROM flow_workflows WHERE ${WITHIN_BOUNDS} ORDER BY id`),
      summaries: db.prepare<[], SummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM flow_workflows WHERE ${WITHIN_BOUNDS} ORDER BY id`),
      byId: db.prepare<[string], WorkflowRow>(`SELECT * FROM flow_workflows WHERE id = ? AND ${WITHIN_BOUNDS}`),
      insert: db.prepare<WorkflowRow>(
        `INSERT INTO flow_workflows (id, label, origin, media_kind, graph, bind, params, created_at, updated_at)
         VALUES (@id, @label, @origin, @media_kind, @graph, @bind, @params, @created_at, @updated_at)`,
      ),
      replace: db.prepare<WorkflowRow>(
        `INSERT INTO flow_workflows (id, label, origin, media_kind, graph, bind, params, created_at, updated_at)
         VALUES (@id, @label, @origin, @media_kind, @graph, @bind, @params, @created_at, @updated_at)
         ON CONFLICT (id) DO UPDATE SET label = excluded.label, origin = excluded.origin, media_kind = excluded.media_kind,
           graph = excluded.graph, bind = excluded.bind, params = excluded.params, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare<[string]>('DELETE FROM flow_workflows WHERE id = ?'),
    };
  }

  /** Every readable workflow, by id. */
  list(): FlowWorkflow[] {
    return this.statements.all.all().flatMap((row) => workflowOf(row) ?? []);
  }

  /** Every readable workflow without its graph, by id (the graph column is not read). */
  summaries(): FlowWorkflowSummary[] {
    return this.statements.summaries.all().flatMap((row) => summaryOf(row) ?? []);
  }

  get(id: string): FlowWorkflow | undefined {
    const row = this.statements.byId.get(id);
    return row ? workflowOf(row) : undefined;
  }

  /** Inserts; false when the id is taken. */
  async insert(workflow: FlowWorkflow): Promise<boolean> {
    try {
      this.statements.insert.run(rowOf(workflow));
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw error;
    }
  }

  /** Inserts or replaces (the first registration's `createdAt` stays). */
  async replace(workflow: FlowWorkflow): Promise<FlowWorkflow> {
    this.statements.replace.run(rowOf(workflow));
    return this.get(workflow.id) ?? workflow;
  }

  async delete(id: string): Promise<boolean> {
    return this.statements.delete.run(id).changes > 0;
  }
}
