import { z } from 'zod';
import { lazy } from '../../common/lazy.js';

// The flow lane's workflow catalog (contract: flow-workflow-catalog §1): what
// `/api/flow/*` takes and answers. A registered workflow is a model of the
// `flow` lane (`flow/<id>`); its `params` are that model's options.

/** Contract §1.2: used in URLs, file names and the model picker. */
export const FLOW_WORKFLOW_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const FLOW_MEDIA_KINDS = ['image', 'video'] as const;
export type FlowMediaKind = (typeof FLOW_MEDIA_KINDS)[number];

/** The request fields a workflow can bind (§1.2); `prompt` and `output` are required. */
export const FLOW_BIND_FIELDS = ['prompt', 'negativePrompt', 'width', 'height', 'seed', 'refImage', 'output'] as const;
export type FlowBindField = (typeof FLOW_BIND_FIELDS)[number];

/**
 * What a registered workflow may hold (ours). The largest real API-format graphs are a few hundred
 * nodes and well under a megabyte; these bounds leave room for ten times that, and keep every
 * catalog read (capabilities, lane status, listing) cheap. A graph over them is refused with
 * FLOW_WORKFLOW_TOO_LARGE; a stored one over them (an older build's) is skipped on reading.
 */
export const FLOW_WORKFLOW_LIMITS = {
  /** The graph as JSON, UTF-8 bytes. */
  maxGraphBytes: 4 * 1024 * 1024,
  maxNodes: 5_000,
  /** Nesting of the graph document (the graph is 1, a node 2, its inputs 3, a link array 4). */
  maxDepth: 16,
  /** Values in the whole graph document. */
  maxValues: 200_000,
  /** Longest string (or key) anywhere in the graph. */
  maxStringLength: 1024 * 1024,
  /** A record's params as JSON, UTF-8 bytes. */
  maxParamsBytes: 4 * 1024 * 1024,
  maxParams: 5_000,
  /** A combo param's choices (more from the server's catalogue are cut). */
  maxChoices: 10_000,
} as const;

/** One node of an API-format graph: `inputs` values are literals or links `["<node id>", <slot>]`. */
export const flowGraphNode = lazy(() =>
  z.object({
    class_type: z.string().min(1),
    inputs: z.record(z.string(), z.unknown()),
    _meta: z.object({ title: z.string().optional() }).passthrough().optional(),
  }),
);
export const flowGraph = lazy(() => z.record(z.string(), flowGraphNode));
export type FlowGraph = z.infer<typeof flowGraph>;

const inputRef = lazy(() => z.object({ node: z.string().min(1).max(64), input: z.string().min(1).max(200) }).strict());
export const flowBind = lazy(() =>
  z
    .object({
      prompt: inputRef,
      negativePrompt: inputRef.optional(),
      width: inputRef.optional(),
      height: inputRef.optional(),
      seed: inputRef.optional(),
      refImage: inputRef.optional(),
      output: z.object({ node: z.string().min(1).max(64) }).strict(),
    })
    .strict(),
);
export type FlowBind = z.infer<typeof flowBind>;

/** A free input of the graph, offered as an option of the model (`<class_type>.<input>`). */
export const flowParam = lazy(() =>
  z
    .object({
      name: z.string().min(1).max(200),
      node: z.string().min(1).max(64),
      input: z.string().min(1).max(200),
      type: z.enum(['integer', 'number', 'string', 'boolean']),
      default: z.union([z.number(), z.string().max(FLOW_WORKFLOW_LIMITS.maxStringLength), z.boolean()]).optional(),
      min: z.number().optional(),
      max: z.number().optional(),
      /** A combo input's allowed values. */
      choices: z.array(z.string().max(FLOW_WORKFLOW_LIMITS.maxStringLength)).max(FLOW_WORKFLOW_LIMITS.maxChoices).optional(),
    })
    .strict(),
);
export type FlowParam = z.infer<typeof flowParam>;

/** A stored workflow (§1.2). `createdAt`, `updatedAt`: ms since the epoch. */
export const flowWorkflow = lazy(() =>
  z.object({
    id: z.string().regex(FLOW_WORKFLOW_ID),
    label: z.string(),
    origin: z.string(),
    mediaKind: z.enum(FLOW_MEDIA_KINDS),
    graph: flowGraph,
    bind: flowBind,
    params: z.array(flowParam).max(FLOW_WORKFLOW_LIMITS.maxParams),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  }),
);
export type FlowWorkflow = z.infer<typeof flowWorkflow>;

/** A node-graph server's health (probed with `/system_stats`). */
export const flowHealth = lazy(() => z.object({ ok: z.boolean(), version: z.string().optional(), reason: z.string().optional() }));
export type FlowHealth = z.infer<typeof flowHealth>;

/** A place a field could be bound to (§1.3); `unambiguous: false` when several nodes qualify. */
export const flowBindCandidate = lazy(() =>
  z.object({
    field: z.enum(FLOW_BIND_FIELDS),
    node: z.string(),
    input: z.string().optional(),
    classType: z.string(),
    title: z.string().optional(),
    unambiguous: z.boolean(),
  }),
);
export type FlowBindCandidate = z.infer<typeof flowBindCandidate>;

/** Where the graph comes from: an API-format graph (object or JSON text), or a PNG the server saved. */
const graphSource = lazy(() => ({
  graph: z.unknown().optional(),
  pngBase64: z
    .string()
    .max(96 * 1024 * 1024)
    .optional(),
}));

/** POST /api/flow/inspect. `origin` (ours): the server whose `/object_info` types the params (default: the lane's base URL). */
export const flowInspectRequest = lazy(() => z.object({ ...graphSource, origin: z.string().max(200).optional() }).strict());
export type FlowInspectRequest = z.infer<typeof flowInspectRequest>;

export const flowInspectResult = lazy(() =>
  z.object({
    ok: z.literal(true),
    nodes: z.array(z.object({ id: z.string(), classType: z.string(), title: z.string().optional() })),
    candidates: z.array(flowBindCandidate),
    mediaKind: z.enum(FLOW_MEDIA_KINDS).optional(),
    needsConfirmation: z.boolean(),
    /** Ours: the binding inferred from the unambiguous candidates (what a registration without `bind` takes). */
    bind: flowBind.partial().optional(),
    /** Ours: the params a registration would derive with this binding. */
    params: z.array(flowParam),
  }),
);
export type FlowInspectResult = z.infer<typeof flowInspectResult>;

/** POST /api/flow/workflows. `bind` may be left out (ours) when inspection infers it without ambiguity. */
export const flowRegisterRequest = lazy(() =>
  z
    .object({
      ...graphSource,
      id: z.string().max(200),
      label: z.string().trim().min(1).max(200).optional(),
      origin: z.string().max(200).optional(),
      bind: z.unknown().optional(),
      params: z.array(flowParam).max(FLOW_WORKFLOW_LIMITS.maxParams).optional(),
      mediaKind: z.string().max(20).optional(),
      replace: z.boolean().optional(),
    })
    .strict(),
);
export type FlowRegisterRequest = z.infer<typeof flowRegisterRequest>;

export const flowProbeRequest = lazy(() => z.object({ origin: z.string().max(200).optional() }).strict());

export type FlowWorkflowListing = FlowWorkflow & { health: FlowHealth };
