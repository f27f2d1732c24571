import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { defineLane } from '../define-lane.js';
import type { ImageOperation, LaneModule } from '../types.js';
import { deltaGenerate } from './generate.js';
import { deltaOptions, type DeltaOptions } from './options.js';

// The `delta` lane: one synchronous JSON endpoint whose answers carry a
// `base_resp` status envelope (contract: delta-image-generation-base-resp).
// Text-to-image, or image-to-image with one subject reference.

function deltaKey(ctx: LaneEnv): string {
  const key = ctx.key('delta');
  if (!key)
    throw new ServiceError(
      'API_KEY_REQUIRED',
      'The delta lane needs DELTA_API_KEY: set it in the environment or under "keys".delta in config.json.',
      { details: { lane: 'delta', env: 'DELTA_API_KEY' } },
    );
  return key.value;
}

const generate: ImageOperation<DeltaOptions> = (ctx, request, job) => deltaGenerate(ctx, deltaLane, deltaKey(ctx), request, job);

/** Spec: delta takes one reference. */
const MAX_INPUT_IMAGES = 1;

export const deltaLane: LaneModule = defineLane({
  id: 'delta',
  label: 'Delta',
  description: 'Single JSON endpoint with a base_resp envelope; models image-01 and image-01-live, one subject reference.',
  credential: { kind: 'key', namespaces: ['delta'] },
  // No free endpoint (its one route generates and bills): no live check.
  keyChecks: { delta: {} },
  codes: {
    missingCredential: 'API_KEY_REQUIRED',
    invalidModel: 'INVALID_DELTA_IMAGE_MODEL',
    tooManyReferences: 'DELTA_REF_TOO_MANY',
    answers: [
      'AUTH_API_KEY_INVALID',
      'RATE_LIMITED',
      'DELTA_INSUFFICIENT_BALANCE',
      'SAFETY_REFUSAL',
      'MODERATION_REFUSED',
      'DELTA_INVALID_PARAMETERS',
      'DELTA_ACCOUNT_VERIFICATION_REQUIRED',
      'DELTA_NO_IMAGE',
      'UPSTREAM_FAILED',
      'UPSTREAM_TIMEOUT',
      'UPSTREAM_PROTOCOL_ERROR',
      'NETWORK_FAILED',
    ],
  },
  models: {
    list: [
      { id: 'image-01', kind: 'image', description: 'Delta image model: the aspect ratios, or free sizes 512–2048.' },
      { id: 'image-01-live', kind: 'image', description: 'Delta image model, live variant: the aspect ratios except 21:9.' },
    ],
    default: 'image-01',
  },
  controls: ['size'],
  options: deltaOptions,
  // Contract §2: 512–2048 in multiples of 8 (sizes.ts), not the hosted tool's multiples of 16.
  ownSizeRule: true,
  maxInputImages: MAX_INPUT_IMAGES,
  timeoutMs: 300_000,
  endpoints: { base: { env: 'SVC_DELTA_BASE_URL', default: 'https://api.minimax.io' } },
  adapter: {
    specificationVersion: 'v1',
    preflight: (ctx) => void deltaKey(ctx),
    generate,
  },
  capabilities: { limits: { deltaReferences: MAX_INPUT_IMAGES } },
});
