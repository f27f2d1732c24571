import { defineLane } from '../define-lane.js';
import type { LaneModule } from '../types.js';
import { BETA_ASPECT_RATIOS, BETA_COST_TABLE, BETA_RESOLUTION_TIERS } from './controls.js';
import { betaAuthModes, betaCredential } from './credentials.js';
import { betaImage } from './generate.js';
import { BETA_KEY_CHECK, CLOUD_KEY_CHECK } from './key-checks.js';
import { NANO_FRUIT_2, NANO_FRUIT_PRO } from './models.js';
import { betaOptions } from './options.js';

// The `beta-api` lane: the direct `:generateContent` image API, by API key or
// by service account (the `cloud` mode). Aspect ratio and resolution are its
// own options; it has no quality, format or moderation control and does not
// run in a multimode batch, so a request that sets one is refused by the
// planner, naming the control.

/** Spec: generation timeout 120 seconds. */
const TIMEOUT_MS = 120_000;

export const betaApiLane: LaneModule = defineLane({
  id: 'beta-api',
  label: 'Beta API',
  description: 'The direct image API with aspect ratio and resolution tiers; by API key or service account (cloud).',
  credential: { kind: 'key', namespaces: ['beta', 'cloud'] },
  keyChecks: { beta: BETA_KEY_CHECK, cloud: CLOUD_KEY_CHECK },
  keyStatus: (ctx) => ({ betaAuthMode: betaAuthModes(ctx) }),
  codes: {
    missingCredential: 'BETA_API_KEY_MISSING',
    invalidModel: 'INVALID_BETA_API_IMAGE_MODEL',
    answers: [
      'BETA_API_RATE_LIMITED',
      'BETA_API_SAFETY_BLOCKED',
      'BETA_API_NO_IMAGE',
      'GENERATION_TIMEOUT',
      'AUTH_API_KEY_INVALID',
      'IMAGE_MODEL_UNSUPPORTED',
      'UPSTREAM_FAILED',
      'UPSTREAM_PROTOCOL_ERROR',
      'NETWORK_FAILED',
      'LANE_UNSUPPORTED',
      'MASK_UNSUPPORTED',
      'REFERENCE_TOO_MANY',
      'JOB_CANCELLED',
    ],
  },
  models: { list: [NANO_FRUIT_2, NANO_FRUIT_PRO], default: NANO_FRUIT_2.id },
  controls: [],
  // Spec: no quality, format or moderation controls (aspect ratio and resolution are its options).
  refusedControls: ['quality', 'format', 'moderation'],
  options: betaOptions,
  // Contract §3: up to 14 input images per request for the 3-series models.
  maxInputImages: 14,
  multimode: false,
  timeoutMs: TIMEOUT_MS,
  endpoints: {
    base: { env: 'SVC_BETA_BASE_URL', default: 'https://generativelanguage.googleapis.com' },
    cloud: { env: 'SVC_BETA_CLOUD_URL', default: 'https://aiplatform.googleapis.com' },
    // Unset: the key file's `token_uri`.
    token: { env: 'SVC_BETA_TOKEN_URL' },
  },
  adapter: {
    specificationVersion: 'v1',
    // BETA_API_KEY_MISSING (or an unusable service account) before the job is accepted.
    preflight: (ctx) => void betaCredential(ctx),
    generate: (ctx, request, job) => betaImage(ctx, betaApiLane, request, job),
    edit: (ctx, request, job) => betaImage(ctx, betaApiLane, request, job),
  },
  capabilities: {
    values: { betaAspectRatios: BETA_ASPECT_RATIOS, betaResolutionTiers: BETA_RESOLUTION_TIERS, betaCost: BETA_COST_TABLE },
    limits: {
      betaGenerationTimeoutSeconds: TIMEOUT_MS / 1000,
      betaAspectRatios: BETA_ASPECT_RATIOS.length,
      betaResolutionTiers: BETA_RESOLUTION_TIERS.length,
    },
  },
});
