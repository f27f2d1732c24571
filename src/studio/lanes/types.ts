import type { z } from 'zod';
import type { ErrorCode } from '../../common/errors.js';
import type { CommonControl, ImageFormat, JobPhase, LaneId, LaneState, Moderation, Quality, ReasoningEffort, Usage } from '../api/index.js';
import type { KeyNamespace } from '../auth/key-namespaces.js';
import type { StudioContext } from '../context.js';

// The lane interface. Each `lanes/<lane>/` folder exports one LaneModule: what
// the lane is (credential, limits, time budget, upstream endpoints), its
// models, its controls and own options, its error codes, and its adapter. The
// catalog assembles the registry from the modules; validation, discovery,
// defaults, the CLI and the web UI read the registry.

export interface LaneStatus {
  readonly state: LaneState;
  readonly reason: string;
  /** `cooling_down`: when the lane may be tried again (ISO time). */
  readonly until?: string;
}

/** How a lane authenticates upstream; readiness checks and remedies derive from it. */
export type Credential =
  | { readonly kind: 'none' }
  | { readonly kind: 'key'; readonly namespaces: readonly KeyNamespace[] }
  /** A session file: the chat CLI's (`oauth`) or ours (`alpha`). `fileEnv` points the studio at another file. */
  | { readonly kind: 'oauth-session'; readonly session: 'chat' | 'alpha'; readonly fileEnv: string; readonly remedy: string }
  /**
   * A program: `overrideEnv` names its path, else the vendor installers' `installDirs` (relative
   * to HOME) are searched, else PATH (the lookup is `lanes/program.ts`). `homeEnv` names another
   * HOME to run it with (its login and its files), when not the studio's.
   */
  | { readonly kind: 'binary'; readonly program: string; readonly overrideEnv: string; readonly installDirs?: readonly string[]; readonly homeEnv?: string }
  | { readonly kind: 'mcp-server' };

export interface ModelSpec {
  readonly id: string;
  readonly kind: 'chat' | 'image' | 'video';
  /** Picker label (e.g. Fast, Best). */
  readonly label?: string;
  readonly description: string;
  /** Kept for old clients; still accepted. */
  readonly compatibility?: boolean;
  /** The id sent upstream when it differs from ours. */
  readonly upstreamId?: string;
  /** On this lane the id runs as another of its models (e.g. lang-5.6-luna as lang-6-luna on oauth). */
  readonly runsAs?: string;
}

export interface LaneModels {
  readonly list: readonly ModelSpec[];
  /** The built-in default; absent for lanes that discover their models at run time. */
  readonly default?: string;
  readonly defaultVideo?: string;
  /** Old ids still accepted, and what they mean now. */
  readonly aliases?: Readonly<Record<string, string>>;
}

/** The lane's own codes (spec) where a generic one would otherwise answer. */
export interface LaneCodes {
  /** Answered when the credential is missing. */
  readonly missingCredential: ErrorCode;
  readonly invalidModel?: ErrorCode;
  readonly maskUnsupported?: ErrorCode;
  readonly editUnsupported?: ErrorCode;
  readonly tooManyReferences?: ErrorCode;
  readonly videoUnsupported?: ErrorCode;
  /** The code a bad value of one of the lane's own options answers (else BAD_REQUEST), by option name. */
  readonly options?: Readonly<Record<string, ErrorCode>>;
  /** Every other code this lane can answer (documentation and the code-coverage tests read it). */
  readonly answers?: readonly ErrorCode[];
}

/** A base URL the lane calls; `env` overrides it (a simulator, a proxy), then config.json `upstreams`. */
export interface Endpoint {
  readonly env: string;
  readonly default?: string;
}

/** A persisted lane default: the environment (when named) wins over config.json, config.json over the built-in. */
export interface LaneSetting<T> {
  readonly env?: string;
  /** The key under `defaults.<lane>` in config.json (model and reasoning are shared across the lanes that have them, plannerModel across the alpha lanes). */
  readonly config?: 'model' | 'reasoning' | 'plannerModel';
  readonly builtin: T;
  /** Parses an environment value; throws a message when it is not valid. */
  readonly parse: (text: string) => T;
}

/** An input image as a lane needs it. */
export interface LaneInputImage {
  readonly bytes: Buffer;
  readonly mime: string;
}

/** One image generation or edit, validated and resolved before the lane sees it. */
export interface LaneImageRequest {
  readonly requestId: string;
  readonly prompt: string;
  readonly model: ResolvedModel;
  readonly format: ImageFormat;
  readonly quality?: Quality;
  readonly size?: string;
  readonly moderation?: Moderation;
  readonly reasoning?: ReasoningEffort;
  readonly negativePrompt?: string;
  /** The lane's own options, already validated by its `options` schema. */
  readonly options: Readonly<Record<string, unknown>>;
  readonly references: readonly LaneInputImage[];
  /** Edits: the image to change, and optionally a mask (transparent = editable). */
  readonly image?: LaneInputImage;
  readonly mask?: LaneInputImage;
}

/** The running job as a lane sees it: a cancel signal, its deadline and progress reports. */
export interface LaneJob {
  /** Aborted when the job is cancelled; the lane passes it to every upstream call. */
  readonly signal: AbortSignal;
  /** When the job's time is up (ms since the epoch): stored when it first started, kept across restarts. */
  readonly deadline: number;
  phase(phase: Exclude<JobPhase, 'queued' | 'saving'>): void;
  /** A low-quality intermediate render; goes to listeners only, never to history. */
  partial(image: { index: number; b64: string; format: ImageFormat }): void;
  /**
   * The checkpoint of a lane with steps: its first billable upstream call is about to be sent.
   * Before it, a crash runs the job again; after it, only a recorded operation lets it go on.
   */
  sending(): void;
}

/** What a lane's long upstream work is, as the job stores it: whatever the vendor needs (JSON). */
export type UpstreamOperation = Readonly<Record<string, unknown>>;

/** The answer of one status call. */
export type StepStatus =
  | { readonly done: false; readonly state?: string; readonly retryAfterMs?: number }
  | { readonly done: true; readonly state?: string; readonly result: LaneImageResult };

/**
 * Long upstream work as steps (the AI SDK's doStart / doStatus split): `start`
 * submits and answers the operation (stored on the job before anything else
 * happens), `status` is one status call, `cancel` reaches the vendor where it
 * has a cancel. The engine schedules the status calls (the lane's intervals,
 * the vendor's Retry-After, the job's stored deadline), so a restarted studio
 * continues every such job from its operation.
 */
export interface LaneSteps {
  /** Its steps edit as well as generate. */
  readonly edits: boolean;
  /** Waits between status calls, the last one repeating. */
  readonly pollIntervalsMs: readonly number[];
  start(ctx: StudioContext, request: LaneImageRequest, job: LaneJob): Promise<{ readonly operation: UpstreamOperation; readonly id: string; readonly state?: string }>;
  status(ctx: StudioContext, request: LaneImageRequest, operation: UpstreamOperation, job: LaneJob): Promise<StepStatus>;
  /** Asks the vendor to stop; answers whether it confirmed. Absent: the polls stop, the vendor is not told. */
  cancel?(ctx: StudioContext, operation: UpstreamOperation): Promise<boolean>;
  /** The error of a job whose deadline passed. */
  timeout(operation: UpstreamOperation | null, timeoutMs: number): Error;
}

export interface LaneImage {
  readonly bytes: Buffer;
  readonly format: ImageFormat;
}

export interface LaneImageResult {
  readonly images: readonly LaneImage[];
  readonly revisedPrompt?: string;
  readonly usage?: Usage;
  /** The settings the upstream call actually used (defaults filled in); stored with the asset. */
  readonly settings: Readonly<Record<string, unknown>>;
}

export type ImageOperation = (ctx: StudioContext, request: LaneImageRequest, job: LaneJob) => Promise<LaneImageResult>;

/**
 * What a lane does. Its operations are its capabilities: a lane without
 * `edit` cannot edit, and nothing else says so. Versioned, so a lane written
 * against an older interface is recognised rather than misread.
 */
export interface LaneAdapter {
  readonly specificationVersion: 'v1';
  /** A readiness check beyond the credential rule (e.g. a session file that cannot be used). */
  probe?(ctx: StudioContext): Promise<LaneStatus | undefined>;
  /** Checks before a job is accepted (credential usable, ...); throws a ServiceError. */
  preflight?(ctx: StudioContext): void;
  generate?: ImageOperation;
  edit?: ImageOperation;
  /** A lane whose generation (and edit, when `steps.edits`) is long upstream work runs it as steps instead; its jobs survive a restart. */
  steps?: LaneSteps;
}

export interface LaneModule {
  readonly id: LaneId;
  readonly label: string;
  readonly description: string;
  readonly credential: Credential;
  readonly codes: LaneCodes;
  readonly models: LaneModels;
  /** The shared request controls the lane takes. */
  readonly controls: readonly CommonControl[];
  /** The lane's own controls in the request's `options`, validated here (strict: unknown names are refused). */
  readonly options?: z.ZodObject;
  /** Most input images per request: references, an edited or parent image, an agent's current image. */
  readonly maxInputImages: number;
  /** Its edit takes a mask. */
  readonly maskEdits?: boolean;
  /** It can run as a slot of a multimode batch (default: whenever it generates). */
  readonly multimode?: boolean;
  /** Whole-call time budget; `SVC_<LANE>_TIMEOUT_MS` overrides it. */
  readonly timeoutMs: number;
  /** Most jobs of this lane running at once (a local program, a single-queue server); `SVC_<LANE>_MAX_RUNNING` overrides it. */
  readonly maxRunning?: number;
  /** `base` is the lane's main URL; other names are further endpoints (e.g. `issuer`). */
  readonly endpoints: Readonly<Record<string, Endpoint>>;
  /** Persisted defaults (GET/PUT /api/defaults), by name. */
  readonly settings?: Readonly<Record<string, LaneSetting<unknown>>>;
  /** Absent while the lane is not built: it is listed, and answers LANE_NOT_AVAILABLE. */
  readonly adapter?: LaneAdapter;
}

/** A model after aliases, the lane default and the lane's compatibility mapping. */
export interface ResolvedModel {
  /** What the client asked for (or the default). */
  readonly requested: string;
  /** Our canonical id of what runs. */
  readonly id: string;
  /** The id sent upstream. */
  readonly upstreamId: string;
  readonly spec: ModelSpec;
}
