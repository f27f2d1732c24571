import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { nodeGenerationResult } from './nodes.js';
import { slotFields } from './requests.js';
import { assetRecord, errorPayload, generationResult, multimodeResult } from './results.js';
import { graphPosition } from './sessions.js';
import { autoRouting, inputDescriptor, laneWarning, plannedModel } from './jobs-base.js';
import { videoJobRequest, videoResult } from './video.js';
import { agentTurn, agentTurnJobRequest } from './agent.js';
import { mcpJobRequest, mcpResult } from './mcp.js';
import { IMAGE_FORMATS, JOB_KINDS, JOB_PHASES, JOB_STATES, LANE_IDS, type JobKind } from './values.js';

// Jobs as the API shows them, typed by kind: what each kind stores as its
// request (JSON: no secrets, input images as descriptors) and what it produces.
// The engine parses a stored job with its kind's schemas, so no stored job is
// ever cast; clients read a job's prompt and settings from the same types.

export {
  autoRouting,
  inputDescriptor,
  laneWarning,
  plannedModel,
  type AutoRouting,
  type InputDescriptor,
  type LaneWarning,
  type PlannedModel,
} from './jobs-base.js';

const outputFields = lazy(() => {
  const { provider: _provider, model: _model, ...fields } = slotFields;
  return fields;
});

/** One output of an image job, resolved: its lane, its model and its settings (the lane's options validated). */
export const slotPlan = lazy(() =>
  z.object({
    requestId: z.string(),
    lane: z.enum(LANE_IDS),
    model: plannedModel,
    fields: z.object({
      ...outputFields,
      prompt: z.string(),
      negativePrompt: z.string().optional(),
      format: z.enum(IMAGE_FORMATS),
      options: z.record(z.string(), z.unknown()),
    }),
    /** Common controls dropped because the lane lacks them (absent when none). */
    warnings: z.array(laneWarning).optional(),
    /** Present when `auto` chose the lane. */
    routing: autoRouting.optional(),
  }),
);
export type SlotPlan = z.infer<typeof slotPlan>;

/** The stored request of generate, edit and multimode jobs: the operation, one slot per output, the input images. */
export const imageJobRequest = lazy(() =>
  z.object({
    operation: z.enum(['generate', 'edit']),
    slots: z.array(slotPlan).min(1),
    inputs: z.object({ references: z.array(inputDescriptor), image: inputDescriptor.optional(), mask: inputDescriptor.optional() }),
  }),
);
export type ImageJobRequest = z.infer<typeof imageJobRequest>;

/** Where a node job's node goes, recorded once its image is saved. */
export const nodeJobSpec = lazy(() =>
  z.object({
    nodeId: z.string(),
    sessionId: z.string().nullable(),
    parentNodeId: z.string().nullable(),
    addToGraph: z.boolean(),
    position: graphPosition.optional(),
  }),
);
export type NodeJobSpec = z.infer<typeof nodeJobSpec>;

/** A node job's stored request: the image job's, plus its node. */
export const nodeJobRequest = lazy(() => imageJobRequest.extend({ node: nodeJobSpec }));
export type NodeJobRequest = z.infer<typeof nodeJobRequest>;

/** A trace's stored request (POST /api/assets/derived): the source in history and the tracer's parameters. */
export const traceJobRequest = lazy(() =>
  z.object({
    kind: z.literal('vector-svg'),
    source: z.string(),
    preset: z.string(),
    parameters: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  }),
);
export type TraceJobRequest = z.infer<typeof traceJobRequest>;

/** Each kind's stored request and result, declared once. */
export const JOB_KIND_SCHEMAS = {
  generate: { request: imageJobRequest, result: generationResult },
  edit: { request: imageJobRequest, result: generationResult },
  multimode: { request: imageJobRequest, result: multimodeResult },
  node: { request: nodeJobRequest, result: nodeGenerationResult },
  trace: { request: traceJobRequest, result: assetRecord },
  video: { request: videoJobRequest, result: videoResult },
  'agent-turn': { request: agentTurnJobRequest, result: agentTurn },
  mcp: { request: mcpJobRequest, result: mcpResult },
} as const satisfies Record<JobKind, { request: z.ZodType; result: z.ZodType }>;

export type JobRequestOf<K extends JobKind> = z.infer<(typeof JOB_KIND_SCHEMAS)[K]['request']>;
export type JobResultOf<K extends JobKind> = z.infer<(typeof JOB_KIND_SCHEMAS)[K]['result']>;
export type JobRequest = JobRequestOf<JobKind>;

/** The schemas by kind, typed so that indexing by a kind `K` gives the parser of `K` (the engine parses stored jobs with these). */
export const JOB_REQUESTS: { readonly [K in JobKind]: z.ZodType<JobRequestOf<K>> } = {
  generate: imageJobRequest,
  edit: imageJobRequest,
  multimode: imageJobRequest,
  node: nodeJobRequest,
  trace: traceJobRequest,
  video: videoJobRequest,
  'agent-turn': agentTurnJobRequest,
  mcp: mcpJobRequest,
};
export const JOB_RESULTS: { readonly [K in JobKind]: z.ZodType<JobResultOf<K>> } = {
  generate: generationResult,
  edit: generationResult,
  multimode: multimodeResult,
  node: nodeGenerationResult,
  trace: assetRecord,
  video: videoResult,
  'agent-turn': agentTurn,
  mcp: mcpResult,
};

/** What a job produced, whatever its kind (`done.result`). The node result comes first: a generation's schema would strip its node fields. */
export const jobResult = lazy(() =>
  z.union([mcpResult, nodeGenerationResult, videoResult, generationResult, multimodeResult, assetRecord, agentTurn]),
);
export type JobResult = z.infer<typeof jobResult>;

/** 202 answer of an async POST. */
export const acceptedAnswer = lazy(() => z.object({ requestId: z.string(), status: z.literal('accepted') }));

/** A job not finished yet, as GET /api/inflight lists it: running, waiting on its upstream, or queued. */
export const inflightJob = lazy(() =>
  z.object({
    requestId: z.string(),
    kind: z.enum(JOB_KINDS),
    /** The lane it runs on (`auto` resolved); `multimode` when slots use several; the kind for a job without a lane (a trace). */
    provider: z.string(),
    model: z.string().optional(),
    state: z.enum(['queued', 'running', 'waiting']),
    /** Queued: 1 for the next job to start, 2 for the one after, ... */
    position: z.number().int().optional(),
    phase: z.enum(JOB_PHASES),
    createdAt: z.string(),
    /** Null while it is queued. */
    startedAt: z.string().nullable(),
    /** Multimode: how many outputs. */
    slots: z.number().int().optional(),
    attempt: z.number().int(),
    priority: z.number().int(),
    /** True once a cancel was asked for. */
    cancelling: z.boolean(),
  }),
);
export type InflightJob = z.infer<typeof inflightJob>;

/** How far back GET /api/jobs looks by default (the queue panel's "last hour"), and how many it lists at most. */
export const FINISHED_JOBS = { defaultWindowMs: 60 * 60 * 1000, defaultLimit: 100, maxLimit: 200 } as const;

/** GET /api/jobs: the jobs that ended since `since` (ISO time; default an hour ago), the newest end first. */
export const finishedJobsQuery = lazy(() =>
  z.object({
    since: z.iso.datetime({ offset: true }).optional(),
    limit: z.coerce.number().int().min(1).max(FINISHED_JOBS.maxLimit).optional(),
  }),
);

/** A finished job as GET /api/jobs lists it: what it was and how it ended (its result stays at GET /api/jobs/:requestId). */
export const finishedJob = lazy(() =>
  z.object({
    requestId: z.string(),
    kind: z.enum(JOB_KINDS),
    provider: z.string(),
    model: z.string().optional(),
    /** One of TERMINAL_JOB_STATES. */
    state: z.enum(JOB_STATES),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string(),
    attempt: z.number().int(),
    retryOf: z.string().nullable(),
    error: errorPayload.nullable(),
  }),
);
export type FinishedJob = z.infer<typeof finishedJob>;
export const finishedJobsAnswer = lazy(() => z.object({ jobs: z.array(finishedJob), since: z.string() }));
export type FinishedJobsAnswer = z.infer<typeof finishedJobsAnswer>;

/** One attempt of a job (a retry is a new attempt with its own requestId). */
export const jobAttempt = lazy(() =>
  z.object({
    requestId: z.string(),
    attempt: z.number().int(),
    state: z.enum(JOB_STATES),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  }),
);

/** What every job record has, whatever its kind. */
const jobRecordBase = lazy(() =>
  z.object({
    requestId: z.string(),
    state: z.enum(JOB_STATES),
    /** Queued: its place (1 = next). */
    position: z.number().int().nullable(),
    phase: z.enum(JOB_PHASES).nullable(),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    priority: z.number().int(),
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
    /** When its time is up: set when it first starts, kept across restarts. */
    deadline: z.string().nullable(),
    /** Waiting: when the next status call is due. */
    nextCheckAt: z.string().nullable(),
    /** The upstream's own operation (a prediction, a video job), when the lane has one. */
    upstream: z.object({ operationId: z.string(), state: z.string().nullable() }).nullable(),
    /** Whether its first billable upstream call may have been sent (then it is never sent again by itself). */
    reachedUpstream: z.boolean(),
    /** After a cancel of a job with an upstream operation: whether the vendor confirmed it (null: not asked). */
    cancelConfirmed: z.boolean().nullable(),
    /** 1 for the first attempt; a retry's is higher. */
    attempt: z.number().int(),
    /** The first attempt's requestId, on a retry. */
    retryOf: z.string().nullable(),
    /** Every attempt of this job, the first one first (itself included). */
    attempts: z.array(jobAttempt),
    error: errorPayload.nullable(),
    /** The studio that holds it now (its lease: GET /api/health `instance`); null while none does (queued, parked, ended). */
    instance: z.string().nullable(),
  }),
);

/** The record of one kind: its `request` and `result` typed by the kind's schemas. */
const kindRecord = <K extends JobKind, Q extends z.ZodType, R extends z.ZodType>(
  kind: K,
  schemas: { readonly request: Q; readonly result: R },
) => jobRecordBase.extend({ kind: z.literal(kind), request: schemas.request, result: schemas.result.nullable() });

/** GET /api/jobs/:requestId: a job at any point of its life, and for a while after it ended; `request` and `result` by `kind`. */
export const jobRecord = lazy(() =>
  z.discriminatedUnion('kind', [
    kindRecord('generate', JOB_KIND_SCHEMAS.generate),
    kindRecord('edit', JOB_KIND_SCHEMAS.edit),
    kindRecord('multimode', JOB_KIND_SCHEMAS.multimode),
    kindRecord('node', JOB_KIND_SCHEMAS.node),
    kindRecord('trace', JOB_KIND_SCHEMAS.trace),
    kindRecord('video', JOB_KIND_SCHEMAS.video),
    kindRecord('agent-turn', JOB_KIND_SCHEMAS['agent-turn']),
    kindRecord('mcp', JOB_KIND_SCHEMAS.mcp),
  ]),
);
export type JobRecord = z.infer<typeof jobRecord>;

/** 202 answer of POST /api/jobs/:requestId/retry. */
export const retryAnswer = lazy(() =>
  z.object({
    requestId: z.string(),
    status: z.literal('accepted'),
    attempt: z.number().int(),
    retryOf: z.string(),
  }),
);
export type RetryAnswer = z.infer<typeof retryAnswer>;
