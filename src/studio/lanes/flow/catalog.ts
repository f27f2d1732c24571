import { ServiceError } from '../../errors.js';
import {
  FLOW_WORKFLOW_ID,
  FLOW_WORKFLOW_LIMITS,
  type FlowHealth,
  type FlowInspectRequest,
  type FlowInspectResult,
  type FlowRegisterRequest,
  type FlowWorkflow,
  type FlowWorkflowListing,
} from '../../api/flow.js';
import type { LaneEnv } from '../env.js';
import type { FlowWorkflowRepository, FlowWorkflowSummary } from '../../store/repositories.js';
import type { LaneStatus, ModelSpec } from '../types.js';
import {
  bindCandidates,
  checkBind,
  checkMediaKind,
  checkParams,
  deriveParams,
  inferredBind,
  mediaKindOfOutput,
  needsConfirmation,
  workflowOptions,
  type NodeCatalog,
} from './binding.js';
import { readGraphInput } from './graph-input.js';
import { checkOrigin } from './origin.js';
import { readObjectInfo, readSystemStats } from './server.js';

// The workflow catalog (contract: flow-workflow-catalog §1–2): inspect,
// register, list with each server's health, delete, probe. A registered
// workflow is a model of the lane (`flow/<id>`), its params the model's
// options. Records live in the studio database (migration 13); the demo's
// sample is held in memory only, so a demo never writes (or replaces) a
// workflow of the user's. A server's health is probed with `/system_stats`
// (2 s) and kept for a few seconds, so listing models or lanes does not probe
// on every call.

/** Contract §2: the probe's budget. */
const PROBE_TIMEOUT_MS = 2_000;
/** How long a probe's answer stands. */
const HEALTH_TTL_MS = 5_000;
/** Reading `/object_info` to type the params. */
const OBJECT_INFO_TIMEOUT_MS = 5_000;

/** Params (given or derived from a large graph) within the bounds a stored record is read back with. */
function checkParamsSize(params: readonly unknown[]): void {
  const { maxParams, maxParamsBytes } = FLOW_WORKFLOW_LIMITS;
  if (params.length > maxParams)
    throw new ServiceError(
      'FLOW_WORKFLOW_TOO_LARGE',
      `A workflow has at most ${maxParams} params; this one has ${params.length}: bind or supply fewer.`,
      { details: { field: 'params', bound: 'params', max: maxParams, got: params.length } },
    );
  const bytes = Buffer.byteLength(JSON.stringify(params), 'utf8');
  if (bytes > maxParamsBytes)
    throw new ServiceError(
      'FLOW_WORKFLOW_TOO_LARGE',
      `A workflow's params are at most ${maxParamsBytes} bytes as JSON; these are ${bytes}.`,
      { details: { field: 'params', bound: 'bytes', max: maxParamsBytes, got: bytes } },
    );
}

export class FlowCatalog {
  readonly store: FlowWorkflowRepository;
  private readonly health = new Map<string, { at: number; answer: Promise<FlowHealth> }>();
  private readonly models = new Map<string, { updatedAt: number; spec: ModelSpec }>();
  /** Workflows held in memory only, over the stored ones of the same id (the demo's sample). */
  private readonly held = new Map<string, FlowWorkflow>();

  constructor(private readonly ctx: LaneEnv) {
    this.store = ctx.records.flowWorkflows;
  }

  /** The lane's base URL: the origin a workflow registered without one runs on. */
  defaultOrigin(): string {
    return checkOrigin(this.ctx.upstreamUrl('flow'));
  }

  get(id: string): FlowWorkflow | undefined {
    return this.held.get(id) ?? this.store.get(id);
  }

  /** Every workflow, by id: the stored ones and those held in memory (which win over a stored one of their id). */
  private all(): FlowWorkflow[] {
    return this.withHeld(this.store.list());
  }

  /** Every workflow without its graph: what catalog reads (models, lane status) take, so they never load a graph. */
  private summaries(): FlowWorkflowSummary[] {
    return this.withHeld(this.store.summaries());
  }

  private withHeld<T extends FlowWorkflowSummary>(stored: T[]): (T | FlowWorkflow)[] {
    if (this.held.size === 0) return stored;
    return [...stored.filter((workflow) => !this.held.has(workflow.id)), ...this.held.values()].sort((a, b) =>
      a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
  }

  /** A workflow by id, or FLOW_WORKFLOW_NOT_FOUND. */
  require(id: string): FlowWorkflow {
    const workflow = this.get(id);
    if (!workflow) throw this.notFound(id);
    return workflow;
  }

  private notFound(id: string): ServiceError {
    return new ServiceError('FLOW_WORKFLOW_NOT_FOUND', `No workflow "${id.slice(0, 64)}" is registered.`, {
      details: { id: id.slice(0, 64), registered: this.summaries().map((entry) => entry.id) },
    });
  }

  /** The server's node catalogue, or undefined when it does not answer (params are then typed by their values). */
  private async nodeCatalog(origin: string): Promise<NodeCatalog | undefined> {
    try {
      return await readObjectInfo({ origin, timeoutMs: OBJECT_INFO_TIMEOUT_MS });
    } catch {
      return undefined;
    }
  }

  async inspect(request: FlowInspectRequest): Promise<FlowInspectResult> {
    const graph = readGraphInput(request);
    const origin = request.origin !== undefined ? checkOrigin(request.origin) : this.defaultOrigin();
    const candidates = bindCandidates(graph);
    const bind = inferredBind(candidates);
    const outputs = candidates.filter((candidate) => candidate.field === 'output');
    const mediaKind = outputs.length === 1 ? mediaKindOfOutput(graph, outputs[0].node) : undefined;
    return {
      ok: true,
      nodes: Object.entries(graph).map(([id, node]) => ({
        id,
        classType: node.class_type,
        ...(node._meta?.title ? { title: node._meta.title } : {}),
      })),
      candidates,
      ...(mediaKind ? { mediaKind } : {}),
      needsConfirmation: needsConfirmation(candidates),
      bind,
      params: deriveParams(graph, bind, await this.nodeCatalog(origin)),
    };
  }

  /**
   * Registers a workflow. `inMemory` (the demo's sample) holds it for this run only, over a stored
   * workflow of the same id, which stays as it is.
   */
  async register(request: FlowRegisterRequest, { inMemory = false } = {}): Promise<FlowWorkflow> {
    if (!FLOW_WORKFLOW_ID.test(request.id)) {
      throw new ServiceError(
        'FLOW_WORKFLOW_ID_INVALID',
        `"${request.id.slice(0, 80)}" is not a workflow id: 1–64 characters of a-z, 0-9, "_" and "-", starting with a letter or digit.`,
        { details: { field: 'id', pattern: FLOW_WORKFLOW_ID.source } },
      );
    }
    const origin = request.origin !== undefined ? checkOrigin(request.origin) : this.defaultOrigin();
    const graph = readGraphInput(request);
    const bind = checkBind(graph, request.bind);
    const mediaKind = checkMediaKind(graph, bind, request.mediaKind);
    const params = request.params ? checkParams(graph, request.params) : deriveParams(graph, bind, await this.nodeCatalog(origin));
    checkParamsSize(params);
    const now = Date.now();
    const workflow: FlowWorkflow = {
      id: request.id,
      label: request.label ?? request.id,
      origin,
      mediaKind,
      graph,
      bind,
      params,
      createdAt: now,
      updatedAt: now,
    };
    if (inMemory) {
      this.held.set(workflow.id, workflow);
      return workflow;
    }
    if (request.replace === true) {
      this.held.delete(workflow.id);
      return this.store.replace(workflow);
    }
    if (this.held.has(workflow.id) || !(await this.store.insert(workflow)))
      throw new ServiceError(
        'FLOW_WORKFLOW_ID_TAKEN',
        `A workflow "${request.id}" is registered already; send replace: true to replace it.`,
        { details: { id: request.id } },
      );
    return workflow;
  }

  async delete(id: string): Promise<void> {
    if (this.held.delete(id)) return;
    if (!(await this.store.delete(id))) throw this.notFound(id);
  }

  /** Each workflow with its server's health (every distinct origin probed once, in parallel). */
  async list(): Promise<FlowWorkflowListing[]> {
    const workflows = this.all();
    const origins = [...new Set(workflows.map((workflow) => workflow.origin))];
    const health = new Map(await Promise.all(origins.map(async (origin) => [origin, await this.probe(origin)] as const)));
    return workflows.map((workflow) => ({ ...workflow, health: health.get(workflow.origin) as FlowHealth }));
  }

  /** A server's health, probed at most every few seconds (concurrent askers share one probe). */
  probe(origin: string, fresh = false): Promise<FlowHealth> {
    const held = this.health.get(origin);
    if (held && !fresh && Date.now() - held.at < HEALTH_TTL_MS) return held.answer;
    const answer = readSystemStats({ origin, timeoutMs: PROBE_TIMEOUT_MS }).then(
      ({ version }): FlowHealth => ({ ok: true, ...(version ? { version } : {}) }),
      (error: unknown): FlowHealth => ({ ok: false, reason: error instanceof Error ? error.message : 'no answer' }),
    );
    this.health.set(origin, { at: Date.now(), answer });
    return answer;
  }

  /** Contract §2: no workflow → disconnected; any server live → ready (saying when some are not); none → disconnected. */
  async laneStatus(): Promise<LaneStatus> {
    const origins = [...new Set(this.summaries().map((workflow) => workflow.origin))];
    if (origins.length === 0)
      return { state: 'disconnected', reason: 'No workflow registered: add one with svc flow workflows add <file> --id <id>.' };
    const health = await Promise.all(origins.map((origin) => this.probe(origin)));
    const live = origins.filter((_origin, index) => health[index].ok);
    if (live.length === 0)
      return {
        state: 'disconnected',
        reason: `No node-graph server answers (${origins.map((origin, index) => `${origin}: ${health[index].reason ?? 'down'}`).join('; ')}).`,
      };
    if (live.length < origins.length)
      return { state: 'ready', reason: `Some instances offline: ${origins.filter((origin) => !live.includes(origin)).join(', ')}.` };
    return {
      state: 'ready',
      reason: `${origins.length === 1 ? 'The node-graph server answers' : 'Every node-graph server answers'} (${origins.join(', ')}).`,
    };
  }

  /** The workflows as models of the lane: id, kind, label, origin, and their params as options. */
  modelSpecs(): ModelSpec[] {
    const workflows = this.summaries();
    return workflows.map((workflow) => {
      const held = this.models.get(workflow.id);
      if (held && held.updatedAt === workflow.updatedAt) return held.spec;
      const spec: ModelSpec = {
        id: workflow.id,
        kind: workflow.mediaKind,
        label: workflow.label,
        description: `Workflow on ${workflow.origin}${workflow.bind.refImage ? ' (takes one reference image)' : ''}.`,
        options: workflowOptions(workflow.bind, workflow.params),
      };
      this.models.set(workflow.id, { updatedAt: workflow.updatedAt, spec });
      return spec;
    });
  }
}

const perStudio = new WeakMap<LaneEnv, FlowCatalog>();

/** The studio's workflow catalog. */
export function flowCatalog(ctx: LaneEnv): FlowCatalog {
  let catalog = perStudio.get(ctx);
  if (!catalog) perStudio.set(ctx, (catalog = new FlowCatalog(ctx)));
  return catalog;
}
