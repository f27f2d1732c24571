import type { ErrorCode } from '../../common/errors.js';

// Every lane of the studio as data: its credential, what it can do, its
// reference limit and timeout, and where its upstream lives. Validation,
// /api/providers, /api/capabilities and the CLI read this table.

export const LANE_IDS = ['auto', 'oauth', 'api', 'alpha', 'alpha-api', 'beta-api', 'cligen', 'gamma', 'delta', 'epsilon', 'flow', 'zeta', 'eta'] as const;
export type LaneId = (typeof LANE_IDS)[number];
/** The lanes that produce images (everything but the `auto` routing mode). */
export type ProviderLaneId = Exclude<LaneId, 'auto'>;

/** Key namespaces the studio stores and reports (`/api/keys/status`). */
export const KEY_NAMESPACES = {
  omni: { env: 'OMNI_API_KEY', managed: true },
  alpha: { env: 'ALPHA_API_KEY', managed: true },
  beta: { env: 'BETA_API_KEY', managed: true },
  cloud: { env: 'CLOUD_SERVICE_ACCOUNT_JSON', managed: true },
  gamma: { env: 'GAMMA_API_KEY', managed: false },
  delta: { env: 'DELTA_API_KEY', managed: false },
  epsilon: { env: 'EPSILON_API_KEY', managed: false },
} as const;
export type KeyNamespace = keyof typeof KEY_NAMESPACES;

export type Credential =
  | { kind: 'none' }
  | { kind: 'key'; namespaces: readonly KeyNamespace[] }
  | { kind: 'oauth-session'; session: 'chat' | 'alpha' }
  | { kind: 'binary'; program: string; overrideEnv: string }
  | { kind: 'mcp-server' };

export interface LaneSpec {
  readonly id: LaneId;
  readonly label: string;
  readonly description: string;
  readonly credential: Credential;
  /** The code answered when the credential is missing. */
  readonly missingCredentialCode: ErrorCode;
  /** The lane's own codes (spec) for requests it cannot take; others answer the generic code. */
  readonly codes?: {
    readonly maskUnsupported?: ErrorCode;
    readonly editUnsupported?: ErrorCode;
    readonly tooManyReferences?: ErrorCode;
  };
  readonly supports: {
    readonly generate: boolean;
    readonly edit: boolean;
    readonly mask: boolean;
    readonly multimode: boolean;
    readonly video: boolean;
    readonly quality: boolean;
    readonly size: boolean;
    readonly format: boolean;
    readonly moderation: boolean;
    readonly negativePrompt: boolean;
  };
  /** Most input images per request (references, parent or current image); undefined = not stated upstream. */
  readonly maxReferences: number;
  /** Whole-request upstream time budget in ms. */
  readonly timeoutMs: number;
  /** Environment variable that points the lane at another base URL (e.g. a simulator). */
  readonly baseUrlEnv?: string;
  /** The vendor's real base URL. */
  readonly defaultBaseUrl?: string;
}

const none = { generate: false, edit: false, mask: false, multimode: false, video: false, quality: false, size: false, format: false, moderation: false, negativePrompt: false };
const classic = { ...none, generate: true, edit: true, mask: true, multimode: true, quality: true, size: true, format: true, moderation: true };

export const LANES: Record<LaneId, LaneSpec> = {
  auto: {
    id: 'auto', label: 'Auto', description: 'Routing mode: the first ready lane of the default order.',
    credential: { kind: 'none' }, missingCredentialCode: 'NO_LANE_READY',
    supports: { ...classic }, maxReferences: 16, timeoutMs: 300_000,
  },
  oauth: {
    id: 'oauth', label: 'Chat OAuth', description: 'The chat vendor backend with the local chat OAuth session; a lang planner plans, lang-image-2 renders.',
    credential: { kind: 'oauth-session', session: 'chat' }, missingCredentialCode: 'OAUTH_UNAVAILABLE',
    supports: { ...classic }, maxReferences: 16, timeoutMs: 300_000,
    baseUrlEnv: 'SVC_OAUTH_BASE_URL', defaultBaseUrl: 'https://chatgpt.com/backend-api',
  },
  api: {
    id: 'api', label: 'API', description: 'The vendor responses API with the hosted image tool, billed to OMNI_API_KEY.',
    credential: { kind: 'key', namespaces: ['omni'] }, missingCredentialCode: 'API_KEY_REQUIRED',
    supports: { ...classic }, maxReferences: 16, timeoutMs: 300_000,
    baseUrlEnv: 'SVC_API_BASE_URL', defaultBaseUrl: 'https://api.openai.com/v1',
  },
  alpha: {
    id: 'alpha', label: 'Alpha', description: 'Alpha with its OAuth session: web search, planner pass, then the image API.',
    credential: { kind: 'oauth-session', session: 'alpha' }, missingCredentialCode: 'ALPHA_AUTH_FAILED',
    codes: { maskUnsupported: 'ALPHA_MASK_UNSUPPORTED', tooManyReferences: 'ALPHA_REF_TOO_MANY' },
    supports: { ...classic, mask: false, video: true, moderation: false }, maxReferences: 3, timeoutMs: 300_000,
    baseUrlEnv: 'SVC_ALPHA_BASE_URL',
  },
  'alpha-api': {
    id: 'alpha-api', label: 'Alpha API', description: 'The alpha pipeline authenticated by ALPHA_API_KEY.',
    credential: { kind: 'key', namespaces: ['alpha'] }, missingCredentialCode: 'API_KEY_REQUIRED',
    codes: { maskUnsupported: 'ALPHA_MASK_UNSUPPORTED', tooManyReferences: 'ALPHA_REF_TOO_MANY' },
    supports: { ...classic, mask: false, video: true, moderation: false }, maxReferences: 3, timeoutMs: 300_000,
    baseUrlEnv: 'SVC_ALPHA_BASE_URL',
  },
  'beta-api': {
    id: 'beta-api', label: 'Beta API', description: 'The direct image API with aspect ratio and resolution tiers.',
    credential: { kind: 'key', namespaces: ['beta', 'cloud'] }, missingCredentialCode: 'BETA_API_KEY_MISSING',
    supports: { ...none, generate: true, edit: true, size: true }, maxReferences: 14, timeoutMs: 120_000,
    baseUrlEnv: 'SVC_BETA_BASE_URL',
  },
  cligen: {
    id: 'cligen', label: 'Local CLI', description: 'Spawns the local generation CLI; fixed 1024x1024 JPEG, free.',
    credential: { kind: 'binary', program: 'agy', overrideEnv: 'SVC_CLIGEN_BIN' }, missingCredentialCode: 'CLIGEN_GENERATION_FAILED',
    codes: { tooManyReferences: 'CLIGEN_REF_TOO_MANY' },
    supports: { ...none, generate: true, edit: true }, maxReferences: 3, timeoutMs: 360_000,
  },
  gamma: {
    id: 'gamma', label: 'Gamma', description: 'Direct image generation and edit API.',
    credential: { kind: 'key', namespaces: ['gamma'] }, missingCredentialCode: 'API_KEY_REQUIRED',
    supports: { ...none, generate: true, edit: true, quality: true, size: true }, maxReferences: 10, timeoutMs: 300_000,
    baseUrlEnv: 'SVC_GAMMA_BASE_URL',
  },
  delta: {
    id: 'delta', label: 'Delta', description: 'Single JSON endpoint with a base_resp envelope.',
    credential: { kind: 'key', namespaces: ['delta'] }, missingCredentialCode: 'API_KEY_REQUIRED',
    supports: { ...none, generate: true, edit: true, size: true }, maxReferences: 1, timeoutMs: 300_000,
    baseUrlEnv: 'SVC_DELTA_BASE_URL',
  },
  epsilon: {
    id: 'epsilon', label: 'Epsilon', description: 'Text-to-image only, with a negative prompt and native sampling controls.',
    credential: { kind: 'key', namespaces: ['epsilon'] }, missingCredentialCode: 'API_KEY_REQUIRED',
    codes: { maskUnsupported: 'EPSILON_MASK_UNSUPPORTED', editUnsupported: 'EPSILON_EDIT_UNSUPPORTED', tooManyReferences: 'EPSILON_REFERENCES_UNSUPPORTED' },
    supports: { ...none, generate: true, size: true, negativePrompt: true }, maxReferences: 0, timeoutMs: 180_000,
    baseUrlEnv: 'SVC_EPSILON_BASE_URL',
  },
  flow: {
    id: 'flow', label: 'Flow', description: 'Runs a registered workflow of the local node-graph server; each workflow is a model.',
    credential: { kind: 'none' }, missingCredentialCode: 'NETWORK_FAILED',
    supports: { ...none, generate: true, size: true }, maxReferences: 1, timeoutMs: 600_000,
    baseUrlEnv: 'SVC_FLOW_BASE_URL', defaultBaseUrl: 'http://127.0.0.1:8188',
  },
  zeta: {
    id: 'zeta', label: 'Zeta (MCP)', description: 'Image and video through several model families over MCP.',
    credential: { kind: 'mcp-server' }, missingCredentialCode: 'API_KEY_REQUIRED',
    supports: { ...none, generate: true, video: true }, maxReferences: 3, timeoutMs: 600_000,
    baseUrlEnv: 'SVC_ZETA_BASE_URL',
  },
  eta: {
    id: 'eta', label: 'Eta (MCP)', description: 'MCP catalog only until a paid plan unlocks execution.',
    credential: { kind: 'mcp-server' }, missingCredentialCode: 'API_KEY_REQUIRED',
    supports: { ...none }, maxReferences: 3, timeoutMs: 600_000,
    baseUrlEnv: 'SVC_ETA_BASE_URL',
  },
};

/** The order `auto` tries lanes in for classic generation. */
export const AUTO_ORDER: readonly ProviderLaneId[] = ['oauth', 'api', 'alpha', 'alpha-api', 'beta-api', 'cligen'];

export const isLaneId = (value: unknown): value is LaneId => typeof value === 'string' && (LANE_IDS as readonly string[]).includes(value);
