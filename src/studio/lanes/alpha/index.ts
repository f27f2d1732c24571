import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { defineLane } from '../define-lane.js';
import type { ImageOperation, LaneAdapter, LaneModule, LaneSetting, LaneStatus, ModelSpec } from '../types.js';
import { checkAlphaCredential, type AlphaLaneId } from './call.js';
import { ALPHA_CAPABILITIES, ALPHA_MAX_INPUT_IMAGES } from './capabilities.js';
import { ALPHA_PLANNER_VERSIONS, DEFAULT_ALPHA_PLANNER, type AlphaPlanner } from './controls.js';
import { ALPHA_KEY_CHECK } from './key-check.js';
import { alphaOptions, type AlphaOptions } from './options.js';
import { ALPHA_PIPELINE_BUDGET_MS } from './phases.js';
import { runAlpha } from './pipeline.js';
import { alphaQuota } from './quota.js';
import { readAlphaSession, removeAlphaSession } from './session-file.js';
import { startAlphaLogin, startStudioAlphaLogin } from './login.js';
import { alphaAuth } from './status.js';
import { alphaRoutes } from './routes.js';
import { alphaText } from './text.js';
import { alphaVideo } from './video.js';
import { ALPHA_DEFAULT_VIDEO_MODEL, ALPHA_VIDEO_ALIASES, ALPHA_VIDEO_MODELS } from './video-rules.js';
import { withVideoModels } from '../video-catalog.js';

// The `alpha` and `alpha-api` lanes: the same pipeline (mandatory web search,
// a planner pass, then the image API), one with an OAuth session kept in a
// local auth file (`svc alpha login`), one with ALPHA_API_KEY.

const MODELS: readonly ModelSpec[] = [
  { id: 'alpha-image', kind: 'image', label: 'Fast', description: 'Fast alpha image model.' },
  { id: 'alpha-image-quality', kind: 'image', label: 'Best', description: 'Highest-quality alpha image model.' },
  { id: 'alpha-image-2.0', kind: 'image', description: 'Default alpha image model for new sessions.' },
];

/** The planner: SVC_ALPHA_PLANNER_MODEL, else the saved setting (`defaults.<lane>.plannerModel`), else alpha-4.3. */
const plannerSetting: LaneSetting<AlphaPlanner> = {
  env: 'SVC_ALPHA_PLANNER_MODEL',
  config: 'plannerModel',
  builtin: DEFAULT_ALPHA_PLANNER,
  parse: (text) => {
    if (!(ALPHA_PLANNER_VERSIONS as readonly string[]).includes(text))
      throw new Error(`must be one of ${ALPHA_PLANNER_VERSIONS.join(', ')}`);
    return text as AlphaPlanner;
  },
};

const shared = {
  // The video models are declared with their limits in video-rules.ts.
  models: withVideoModels(
    { list: MODELS, default: 'alpha-image-2.0' },
    { models: ALPHA_VIDEO_MODELS, defaultModel: ALPHA_DEFAULT_VIDEO_MODEL, aliases: ALPHA_VIDEO_ALIASES },
  ),
  // The vendor answers JPEG and takes no format; size maps to aspect_ratio and resolution (sizes.ts).
  controls: ['quality', 'size'],
  options: alphaOptions,
  maxInputImages: ALPHA_MAX_INPUT_IMAGES,
  // The sum of the three phase budgets (phases.ts); each phase has its own.
  timeoutMs: ALPHA_PIPELINE_BUDGET_MS,
  settings: { plannerModel: plannerSetting },
  capabilities: ALPHA_CAPABILITIES,
} as const satisfies Partial<LaneModule<typeof alphaOptions>>;

const codes = {
  invalidModel: 'INVALID_ALPHA_IMAGE_MODEL',
  maskUnsupported: 'ALPHA_MASK_UNSUPPORTED',
  tooManyReferences: 'ALPHA_REF_TOO_MANY',
  options: { plannerModel: 'INVALID_ALPHA_PLANNER_MODEL' },
  answers: [
    'ALPHA_AUTH_FAILED',
    'ALPHA_RATE_LIMITED',
    'ALPHA_SPEND_CAP_REACHED',
    'ALPHA_SEARCH_TIMEOUT',
    'ALPHA_PLANNER_TIMEOUT',
    'ALPHA_IMAGE_TIMEOUT',
    'ALPHA_OUTPUT_DOWNLOAD_FAILED',
    'INVALID_ALPHA_PLANNER_MODEL',
    'BAD_REQUEST',
    'UPSTREAM_FAILED',
    'UPSTREAM_PROTOCOL_ERROR',
    'NETWORK_FAILED',
    'JOB_CANCELLED',
  ],
} as const;

/** One pipeline for both lanes: generate and edit are the same run (edits go to images/edits). */
function adapter(id: AlphaLaneId, lane: () => LaneModule): LaneAdapter<AlphaOptions> {
  const run: ImageOperation<AlphaOptions> = (ctx, request, job) => runAlpha(ctx, lane(), request, job);
  return { specificationVersion: 'v1', preflight: (ctx) => checkAlphaCredential(ctx, id), generate: run, edit: run };
}

/**
 * A session file that cannot be used is `needs_credential`, not `ready`; an expired access
 * token still counts as ready while a refresh token exists (contract §2).
 */
async function probeSession(ctx: LaneEnv): Promise<LaneStatus | undefined> {
  try {
    const session = readAlphaSession(ctx.sessionFile('alpha'));
    if (session && session.expiresAt !== undefined && session.expiresAt <= Date.now() && !session.refreshToken) {
      return { state: 'needs_credential', reason: 'The alpha session expired and holds no refresh token: run `svc alpha login`.' };
    }
    return undefined;
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { state: 'needs_credential', reason: error.message };
  }
}

export const alphaLane: LaneModule = defineLane({
  id: 'alpha',
  label: 'Alpha',
  description: 'Alpha with its OAuth session: web search, planner pass, then the image API.',
  credential: { kind: 'oauth-session', session: 'alpha', fileEnv: 'SVC_ALPHA_AUTH_FILE', remedy: 'run `svc alpha login`' },
  sessionFile: { home: 'alpha/auth.json' },
  codes: { ...codes, missingCredential: 'ALPHA_AUTH_FAILED' },
  ...shared,
  endpoints: {
    base: { env: 'SVC_ALPHA_BASE_URL', default: 'https://api.x.ai/v1' },
    // The OIDC issuer of `svc alpha login` and of refreshes; the billing proxy of the quota bar.
    issuer: { env: 'SVC_ALPHA_ISSUER_URL', default: 'https://auth.x.ai' },
    billing: { env: 'SVC_ALPHA_BILLING_URL', default: 'https://cli-chat-proxy.grok.com' },
  },
  // The bar of the account its session signs in as (alpha-api's key has none).
  quota: alphaQuota,
  signIn: async (ctx, options) => {
    const login = await startStudioAlphaLogin(ctx, options);
    return { authorization: login.authorization, completion: login.completion.then((session) => ({ email: session.email })) };
  },
  health: (ctx) => ({ auth: alphaAuth(ctx) }),
  sessionAccount: {
    signInAt: async (target, options) => {
      const login = await startAlphaLogin(target, options);
      return { authorization: login.authorization, completion: login.completion.then((session) => ({ email: session.email })) };
    },
    remove: removeAlphaSession,
  },
  routes: alphaRoutes,
  adapter: { ...adapter('alpha', () => alphaLane), probe: probeSession },
  text: alphaText('alpha'),
  video: alphaVideo('alpha', () => alphaLane),
});

export const alphaApiLane: LaneModule = defineLane({
  id: 'alpha-api',
  label: 'Alpha API',
  description: 'The alpha pipeline authenticated by ALPHA_API_KEY.',
  credential: { kind: 'key', namespaces: ['alpha'] },
  keyChecks: { alpha: ALPHA_KEY_CHECK },
  codes: { ...codes, missingCredential: 'API_KEY_REQUIRED', answers: [...codes.answers, 'API_KEY_REQUIRED'] },
  ...shared,
  endpoints: { base: { env: 'SVC_ALPHA_BASE_URL', default: 'https://api.x.ai/v1' } },
  adapter: adapter('alpha-api', () => alphaApiLane),
  text: alphaText('alpha-api'),
  video: alphaVideo('alpha-api', () => alphaApiLane),
});
