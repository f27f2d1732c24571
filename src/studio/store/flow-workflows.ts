import { flowWorkflow, type FlowWorkflow } from '../api/flow.js';
import type { StudioDatabase } from './database.js';
import type { FlowWorkflowRepository } from './repositories.js';

// The flow_workflows table (migration 13): the flow lane's registered
// workflows, graph, bindings and params as JSON. A row that no longer reads
// as a workflow (edited by hand, written by a newer build) is skipped, never
// answered half-read. SQL stays here, behind these functions.

interface WorkflowRow {
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

function workflowOf(row: WorkflowRow): FlowWorkflow | undefined {
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

const rowOf = (workflow: FlowWorkflow): WorkflowRow => ({
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
      all: db.prepare<[], WorkflowRow>('SELECT * FROM flow_workflows ORDER BY id'),
      byId: db.prepare<[string], WorkflowRow>('SELECT * FROM flow_workflows WHERE id = ?'),
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

  get(id: string): FlowWorkflow | undefined {
    const row = this.statements.byId.get(id);
    return row ? workflowOf(row) : undefined;
  }

  /** Inserts; false when the id is taken. */
  insert(workflow: FlowWorkflow): boolean {
    try {
      this.statements.insert.run(rowOf(workflow));
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return false;
      throw error;
    }
  }

  /** Inserts or replaces (the first registration's `createdAt` stays). */
  replace(workflow: FlowWorkflow): FlowWorkflow {
    this.statements.replace.run(rowOf(workflow));
    return this.get(workflow.id) ?? workflow;
  }

  delete(id: string): boolean {
    return this.statements.delete.run(id).changes > 0;
  }
}
