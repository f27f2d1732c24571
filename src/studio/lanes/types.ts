import type { FastifyPluginAsync } from 'fastify';
import type { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import type {
  CommonControl,
  ImageFormat,
  JobPhase,
  LaneId,
  LaneState,
  Moderation,
  PlannedModel,
  Quality,
  ReasoningEffort,
  Usage,
} from '../api/index.js';
import type { KeyStatus, KeysStatusBody } from '../api/keys.js';
import type { QuotaResult } from '../api/quota.js';
import type { DeviceAuthorization } from '../auth/device-code.js';
import type { KeyNamespace } from '../auth/key-namespaces.js';
import type { LaneEnv } from './env.js';
import type { TextModel } from './text-model.js';
import type { UpstreamError } from '../upstream/index.js';
import type { VideoModel } from './video-model.js';

// The lane interface. Each `lanes/<lane>/` folder exports one LaneModule: what
// the lane is (credential, limits, time budget, upstream endpoints), its
// models, its controls and own options, its codes, what it knows beyond
// generating (its session file, key checks, quota probe, capability extras),
// and its adapter. Its error code definitions are its `codes.ts` (data the one
// code table merges). The catalog assembles the registry from the modules;
// validation, discovery, defaults, keys, quota, the CLI and the web UI read it.

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
  | {
      readonly kind: 'binary';
      readonly program: string;
      readonly overrideEnv: string;
      readonly installDirs?: readonly string[];
      readonly homeEnv?: string;
    }
  /** A hosted MCP server reached with a bearer token from `tokenEnv`. */
  | { readonly kind: 'mcp-server'; readonly tokenEnv: string };

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
  /** This model's own options (the request's `options`), in place of the lane's: a discovered model's parameters (flow). */
  readonly options?: z.ZodObject;
}

export interface LaneModels {
  readonly list: readonly ModelSpec[];
  /** The built-in default; absent for lanes that discover their models at run time. */
  readonly default?: string;
  readonly defaultVideo?: string;
  /** Old ids still accepted, and what they mean now. */
  readonly aliases?: Readonly<Record<string, string>>;
  /**
   * Models found at run time (flow: its registered workflows), read on every use beside `list`;
   * the first image model found is the default when `default` is absent.
   */
  readonly discover?: (ctx: LaneEnv) => readonly ModelSpec[];
}

/** The lane's own codes (spec) where a generic one would otherwise answer. */
export interface LaneCodes<OptionName extends string = string> {
  /** Answered when the credential is missing. */
  readonly missingCredential: ErrorCode;
  readonly invalidModel?: ErrorCode;
  readonly maskUnsupported?: ErrorCode;
  readonly editUnsupported?: ErrorCode;
  readonly tooManyReferences?: ErrorCode;
  readonly videoUnsupported?: ErrorCode;
  /** The code a bad value of one of the lane's own options answers (else BAD_REQUEST), by option name. */
  readonly options?: { readonly [Name in OptionName]?: ErrorCode };
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

/** A lane's own options as the registry holds every lane: by name, types erased (`defineLane` restores them). */
export type LaneOptionValues = Readonly<Record<string, unknown>>;

/** One image generation or edit, validated and resolved before the lane sees it. */
export interface LaneImageRequest<Options = LaneOptionValues> {
  readonly requestId: string;
  readonly prompt: string;
  readonly model: PlannedModel;
  readonly format: ImageFormat;
  readonly quality?: Quality;
  readonly size?: string;
  readonly moderation?: Moderation;
  readonly reasoning?: ReasoningEffort;
  readonly negativePrompt?: string;
  /** The lane's own options, already validated by its `options` schema. */
  readonly options: Options;
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
  /**
   * A low-quality intermediate render; goes to listeners only, never to history. Its base64 is
   * made only when someone listens (`b64` is called then).
   */
  partial(image: { index: number; b64: () => string; format: ImageFormat }): void;
  /** Step progress the upstream reports (flow: a sampler's step `value` of `max`). */
  progress?(step: { value: number; max: number; node?: string }): void;
  /** The job's place in the upstream's own queue (1 = next) while it waits there. */
  queuePosition?(position: number): void;
  /**
   * An image final before the call ends (a Responses stream's `output_item.done`, its terminal
   * event still to come), with what it will be stored with: the job may start writing its file
   * meanwhile. The lane still returns it in its result (the same bytes, revised prompt and
   * settings); a file written for an image the call then does not return is removed.
   */
  imageReady?(image: ReadyImage): void;
  /**
   * The checkpoint of a lane with steps: its first billable upstream call is about to be sent.
   * Before it, a crash runs the job again; after it, only a recorded operation lets it go on.
   */
  sending(): Promise<void>;
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
export interface LaneSteps<Options = LaneOptionValues> {
  /** Its steps edit as well as generate. */
  readonly edits: boolean;
  /** Waits between status calls, the last one repeating (a function: read from the lane's environment). */
  readonly pollIntervalsMs: readonly number[] | ((ctx: LaneEnv) => readonly number[]);
  // Properties, not methods, so their options are checked strictly (a method's parameters are not).
  readonly start: (
    ctx: LaneEnv,
    request: LaneImageRequest<Options>,
    job: LaneJob,
  ) => Promise<{ readonly operation: UpstreamOperation; readonly id: string; readonly state?: string }>;
  readonly status: (ctx: LaneEnv, request: LaneImageRequest<Options>, operation: UpstreamOperation, job: LaneJob) => Promise<StepStatus>;
  /** Asks the vendor to stop; answers whether it confirmed. Absent: the polls stop, the vendor is not told. */
  cancel?(ctx: LaneEnv, operation: UpstreamOperation): Promise<boolean>;
  /** The error of a job whose deadline passed. */
  timeout(operation: UpstreamOperation | null, timeoutMs: number): Error;
}

export interface LaneImage {
  readonly bytes: Buffer;
  readonly format: ImageFormat;
}

/** An image known before its call ends, and the result's fields it will be stored with. */
export interface ReadyImage extends LaneImage {
  readonly revisedPrompt?: string;
  readonly settings: LaneImageResult['settings'];
}

export interface LaneImageResult {
  readonly images: readonly LaneImage[];
  readonly revisedPrompt?: string;
  readonly usage?: Usage;
  /** The settings the upstream call actually used (defaults filled in); stored with the asset. */
  readonly settings: Readonly<Record<string, unknown>>;
}

export type ImageOperation<Options = LaneOptionValues> = (
  ctx: LaneEnv,
  request: LaneImageRequest<Options>,
  job: LaneJob,
) => Promise<LaneImageResult>;

/**
 * What a lane does. Its operations are its capabilities: a lane without
 * `edit` cannot edit, and nothing else says so. Versioned, so a lane written
 * against an older interface is recognised rather than misread.
 */
export interface LaneAdapter<Options = LaneOptionValues> {
  readonly specificationVersion: 'v1';
  /** A readiness check beyond the credential rule (e.g. a session file that cannot be used). */
  probe?(ctx: LaneEnv): Promise<LaneStatus | undefined>;
  /** Checks before a job is accepted (credential usable, ...); throws a ServiceError. */
  preflight?(ctx: LaneEnv): void;
  /** Asynchronous checks before a request's model is resolved (eta: its lock, then its live catalog read); throws a ServiceError. */
  prepare?(ctx: LaneEnv): Promise<void>;
  generate?: ImageOperation<Options>;
  edit?: ImageOperation<Options>;
  /** A lane whose generation (and edit, when `steps.edits`) is long upstream work runs it as steps instead; its jobs survive a restart. */
  steps?: LaneSteps<Options>;
}

/**
 * A lane. `Options` is the schema of its own options; its adapter receives
 * them typed (`z.output<Options>`). The registry holds every lane as the
 * default `LaneModule`, options erased: `defineLane` (lanes/define-lane.ts) makes
 * one from a typed module, validating the options where they are erased.
 */
export interface LaneModule<Options extends z.ZodObject = z.ZodObject> {
  readonly id: LaneId;
  readonly label: string;
  readonly description: string;
  readonly credential: Credential;
  readonly codes: LaneCodes<keyof z.output<Options> & string>;
  readonly models: LaneModels;
  /** The shared request controls the lane takes. */
  readonly controls: readonly CommonControl[];
  /**
   * Controls the spec says this lane does not have: refused (LANE_UNSUPPORTED). Any other
   * common control the lane lacks is dropped with a warning (jobs/controls.ts).
   */
  readonly refusedControls?: readonly CommonControl[];
  /** The lane checks `size` by its vendor's own rule (delta: multiples of 8); else the common SIZE_RULE applies. */
  readonly ownSizeRule?: boolean;
  /** The lane's own controls in the request's `options`, validated here (strict: unknown names are refused). */
  readonly options?: Options;
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
  /** `oauth-session` lanes: where the session file is (GET /api/providers, the lane, quota, sign-in). */
  readonly sessionFile?: SessionFile;
  /** The live check of each key namespace of its credential (GET /api/keys/status, PUT /api/keys/:provider). */
  readonly keyChecks?: { readonly [Namespace in KeyNamespace]?: KeyCheck };
  /** Fields it adds to GET /api/keys/status (beta-api: which of its two credentials is in force). */
  readonly keyStatus?: (ctx: LaneEnv) => Partial<KeysStatusBody>;
  /** Signs the lane's account in by a device code (POST /api/auth/switch): what to show, and how it ends. */
  readonly signIn?: (ctx: LaneEnv, options: { readonly signal?: AbortSignal }) => Promise<AccountLogin>;
  /**
   * The session file's own operations, usable without a studio (`svc <lane> login|logout` when none
   * runs): a device-code sign-in against an issuer into a file, and removing the file.
   */
  readonly sessionAccount?: {
    readonly signInAt: (
      target: { readonly issuerUrl: string; readonly file: string },
      options: { readonly signal?: AbortSignal },
    ) => Promise<AccountLogin>;
    readonly remove: (file: string) => boolean;
  };
  /** What GET /api/health (and the descriptor file) says of the lane, under its id (alpha: whether its session holds a token). */
  readonly health?: (ctx: LaneEnv) => Readonly<Record<string, unknown>>;
  /** Its usage bar in GET /api/quota, under its id. */
  readonly quota?: (ctx: LaneEnv) => Promise<QuotaResult>;
  /** Its entries in GET /api/capabilities beyond the module itself (price tables, native sizes, phases). */
  readonly capabilities?: CapabilityExtras;
  /**
   * The lane's own HTTP routes (its session status, its catalog, the MCP lanes' spec routes), registered
   * by the app once per plugin. Written as `LaneRoutes` (given the LaneEnv) where they can be; routes that
   * submit jobs are written as the studio's `StudioRoutes` (routes/plugin.ts).
   */
  readonly routes?: FastifyPluginAsync<{ readonly ctx: never }>;
  /** Absent while the lane is not built: it is listed, and answers LANE_NOT_AVAILABLE. */
  readonly adapter?: LaneAdapter<z.output<Options>>;
  /** Its text capability (the prompt builder's and Agent Mode planner's backends: lanes/text-model.ts). */
  readonly text?: TextModel;
  /** Its video capability (lanes/video-model.ts): models, limits, plan, steps. */
  readonly video?: VideoModel;
}

/** A lane's route family given only the lane environment. */
export type LaneRoutes = FastifyPluginAsync<{ readonly ctx: LaneEnv }>;

/** A sign-in under way: what to show, and how it ends. */
export interface AccountLogin {
  readonly authorization: Pick<DeviceAuthorization, 'userCode' | 'verificationUrl' | 'expiresInSeconds' | 'intervalSeconds'>;
  /** The signed-in account once saved; rejects with a DeviceCodeError or the signal's reason. */
  readonly completion: Promise<{ readonly email?: string }>;
}

/**
 * Where an `oauth-session` lane's session file is: a demo's file, else its credential's
 * `fileEnv`, else the file `setting` of config.json names (when the lane has one), else `home`
 * under the studio's home (auth/session-files.ts).
 */
export interface SessionFile {
  readonly home: string;
  readonly setting?: 'oauthAuthFile';
}

/**
 * The live check of a key (keys/checks.ts answers its verdict): the free endpoint that says
 * whether the vendor takes the key (the key-check endpoints the lane contracts name), what
 * counts as a refusal, and the vendor's key form.
 */
export interface KeyCheck {
  /** The vendor's key form, enforced on save when the lane talks to the vendor itself (its default URL). */
  readonly form?: { readonly pattern: RegExp; readonly description: string };
  /** Checks the value's shape before anything is saved or sent (a service-account key file); throws a ServiceError naming `details.field`. */
  readonly parse?: (value: string, source: string) => void;
  /** One call with the key; throws what the call threw. Absent: the vendor has no free check. */
  readonly verify?: (ctx: LaneEnv, value: string, options: { timeoutMs: number; signal?: AbortSignal }) => Promise<void>;
  /** Whether a failed call means the key itself was refused (default: 401 or 403). */
  readonly refused?: (error: UpstreamError) => boolean;
  /** What the key status shows of the key instead of its masked value (a service account: its project and email). */
  readonly describe?: (value: string) => Partial<KeyStatus>;
}

/**
 * What a lane adds to GET /api/capabilities, merged across the lanes by name: `values` (valid
 * values: price tables, native sizes, phases), `defaults` and `limits`. Lanes sharing a fact
 * (the alpha pair) share the object; two lanes naming the same entry differently is refused.
 */
export interface CapabilityExtras {
  readonly values?: Readonly<Record<string, unknown>>;
  readonly defaults?: Readonly<Record<string, string>>;
  readonly limits?: Readonly<Record<string, unknown>>;
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
