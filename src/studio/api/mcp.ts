import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { assetRecord } from './results.js';
import { API_LIMITS, JOB_PRIORITY, REQUEST_ID_PATTERN } from './values.js';

// The MCP lanes (spec: MCP lanes, POST /api/mcp/generate, Events 5–6; contract
// zeta-eta-source-usage §3). The body's names are the contract's; the stored
// job, its operation and its result are ours (docs/API.md "MCP lanes").

/** The lanes POST /api/mcp/generate takes (spec: MCP lanes; their code is lanes/zeta, lanes/eta). */
export const MCP_LANES = ['zeta', 'eta'] as const;
export type McpLane = (typeof MCP_LANES)[number];

export const MCP_MEDIA_KINDS = ['image', 'video'] as const;
export type McpMediaKind = (typeof MCP_MEDIA_KINDS)[number];

/** What a request may give a model: the prompt, reference images, a first or last frame, a reference video (§1.2: eta adds audio). */
export const MCP_INPUT_ROLES = ['text', 'image_references', 'start_image', 'end_image', 'video_references', 'audio_references'] as const;
export type McpInputRole = (typeof MCP_INPUT_ROLES)[number];

export const isMcpLane = (value: unknown): value is McpLane => (MCP_LANES as readonly unknown[]).includes(value);

/** A model's declared parameter (GET /api/mcp/models). */
export interface McpParameter {
  readonly name: string;
  readonly type: 'string' | 'number' | 'boolean';
  /** The allowed values (a closed list). */
  readonly options?: readonly (string | number)[];
  readonly min?: number;
  readonly max?: number;
  readonly default?: string | number | boolean;
  readonly description?: string;
}

/** An MCP model: its kind, aspect ratios, input roles and parameters (GET /api/mcp/models). */
export interface McpModel {
  readonly id: string;
  readonly kind: McpMediaKind;
  readonly description?: string;
  readonly aspectRatios: readonly string[];
  readonly inputRoles: readonly McpInputRole[];
  readonly parameters: readonly McpParameter[];
}

/**
 * A task POST /api/mcp/generate planned (contract §3), as the `mcp` job hands it to the lane's image
 * or video steps in the request's options under MCP_TASK_OPTION (in memory, never from a client: the
 * other routes check options by the model's schema): sent as planned, its inputs in their roles.
 */
export interface McpPlannedTask {
  readonly ratio: string | null;
  readonly parameters: Readonly<Record<string, string | number | boolean>>;
  readonly inputs: readonly {
    readonly role: McpInputRole;
    readonly tag?: string;
    readonly file: { readonly filename: string; readonly bytes: Buffer; readonly mime: string };
  }[];
}
export const MCP_TASK_OPTION = 'mcpTask';

/** Scalar parameters, as a model declares them (§3: "scalar record"). */
const scalar = lazy(() => z.union([z.string().max(200), z.number(), z.boolean()]));
const galleryFile = lazy(() => z.string().min(1).max(255));

/** POST /api/mcp/generate. Always asynchronous: 202, then events on /api/events. */
export const mcpGenerateRequest = lazy(() =>
  z
    .object({
      provider: z.string().max(40),
      kind: z.string().max(20),
      prompt: z.string().max(API_LIMITS.promptMaxChars),
      model: z.string().min(1).max(200).optional(),
      ratio: z.string().min(1).max(20).optional(),
      parameters: z.record(z.string().max(64), scalar).optional(),
      startFrameFilename: galleryFile.optional(),
      endFrameFilename: galleryFile.optional(),
      references: z
        .array(
          z
            .object({
              filename: galleryFile,
              tag: z
                .string()
                .regex(/^[A-Za-z0-9_-]{1,32}$/)
                .optional(),
            })
            .strict(),
        )
        .optional(),
      referenceFilenames: z.array(galleryFile).optional(),
      referenceVideoFilename: galleryFile.optional(),
      requestId: z.string().regex(REQUEST_ID_PATTERN).optional(),
      priority: z.number().int().min(JOB_PRIORITY.min).max(JOB_PRIORITY.max).optional(),
    })
    .strict(),
);
export type McpGenerateRequest = z.infer<typeof mcpGenerateRequest>;

/** One input of a job: a gallery file in a role the model takes. */
export const mcpInput = lazy(() => z.object({ role: z.enum(MCP_INPUT_ROLES), filename: z.string(), tag: z.string().optional() }));
export type McpInput = z.infer<typeof mcpInput>;

/** The stored request of an `mcp` job, validated against the model before it was accepted. */
export const mcpJobRequest = lazy(() =>
  z.object({
    lane: z.enum(MCP_LANES),
    media: z.enum(MCP_MEDIA_KINDS),
    prompt: z.string(),
    model: z.string(),
    ratio: z.string().nullable(),
    parameters: z.record(z.string(), scalar),
    inputs: z.array(mcpInput),
  }),
);
export type McpJobRequest = z.infer<typeof mcpJobRequest>;

/** What an `mcp` job produced: the file in history (an image or a video, with its thumbnail and metadata). */
export const mcpResult = lazy(() =>
  z.object({
    requestId: z.string(),
    provider: z.enum(MCP_LANES),
    media: z.enum(MCP_MEDIA_KINDS),
    model: z.string(),
    taskId: z.string(),
    asset: assetRecord,
    timings: z.object({ upstreamMs: z.number(), saveMs: z.number(), totalMs: z.number() }).optional(),
  }),
);
export type McpResult = z.infer<typeof mcpResult>;

/** 202 of POST /api/mcp/generate (§3: `{ok, requestId, provider, kind}`, and `status` as every async POST). */
export const mcpAccepted = lazy(() =>
  z.object({
    ok: z.literal(true),
    requestId: z.string(),
    status: z.literal('accepted'),
    provider: z.enum(MCP_LANES),
    kind: z.enum(MCP_MEDIA_KINDS),
  }),
);

/** The progress phases of an MCP job (§3). */
export const MCP_PHASES = ['uploading', 'provider-queued', 'provider-running', 'downloading'] as const;
export type McpPhase = (typeof MCP_PHASES)[number];
