import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { defineLane } from '../define-lane.js';
import { bearer, jsonObject, keyedGet } from '../key-check.js';
import type { ImageOperation, LaneModule } from '../types.js';
import { epsilonGenerate } from './generate.js';
import { EPSILON_DEFAULT_MODEL, EPSILON_MODELS } from './models.js';
import { epsilonOptions, type EpsilonOptions } from './options.js';
import { epsilonQuota } from './quota.js';

// The `epsilon` lane: text-to-image only, answered as a ZIP holding a PNG
// (contract: epsilon-zip-image-generation). It takes a negative prompt and the
// vendor's native sampling controls (its options); references, edits, masks
// and video fail closed with its own codes before any upstream call.

function epsilonKey(ctx: LaneEnv): string {
  const key = ctx.key('epsilon');
  if (!key)
    throw new ServiceError(
      'API_KEY_REQUIRED',
      'The epsilon lane needs EPSILON_API_KEY (a persistent token): set it in the environment or under "keys".epsilon in config.json.',
      { details: { lane: 'epsilon', env: 'EPSILON_API_KEY' } },
    );
  return key.value;
}

const generate: ImageOperation<EpsilonOptions> = (ctx, request, job) => epsilonGenerate(ctx, epsilonLane, epsilonKey(ctx), request, job);

/** Spec: no references (any reference answers EPSILON_REF_UNSUPPORTED). */
const MAX_INPUT_IMAGES = 0;

export const epsilonLane: LaneModule = defineLane({
  id: 'epsilon',
  label: 'Epsilon',
  description: 'Text-to-image only, with a negative prompt and native sampling controls; answers a ZIP holding a PNG.',
  credential: { kind: 'key', namespaces: ['epsilon'] },
  // Contract §1: `GET /user/data`, the free key check.
  keyChecks: { epsilon: { verify: keyedGet('epsilon', '/user/data', bearer, jsonObject) } },
  codes: {
    missingCredential: 'API_KEY_REQUIRED',
    maskUnsupported: 'EPSILON_MASK_UNSUPPORTED',
    editUnsupported: 'EPSILON_EDIT_UNSUPPORTED',
    tooManyReferences: 'EPSILON_REF_UNSUPPORTED',
    videoUnsupported: 'VIDEO_PROVIDER_UNSUPPORTED',
    answers: [
      'AUTH_API_KEY_INVALID',
      'EPSILON_SUBSCRIPTION_REQUIRED',
      'EPSILON_USAGE_EXHAUSTED',
      'RATE_LIMITED',
      'EPSILON_BAD_REQUEST',
      'EPSILON_REQUEST_CONFLICT',
      'EPSILON_EMPTY_IMAGE',
      'EPSILON_RESPONSE_NOT_ZIP',
      'EPSILON_ZIP_INVALID',
      'EPSILON_ZIP_UNSUPPORTED',
      'EPSILON_ZIP_TOO_LARGE',
      'EPSILON_IMAGE_INVALID',
      'UPSTREAM_FAILED',
      'UPSTREAM_TIMEOUT',
      'UPSTREAM_PROTOCOL_ERROR',
      'NETWORK_FAILED',
    ],
  },
  models: { list: EPSILON_MODELS, default: EPSILON_DEFAULT_MODEL },
  controls: ['size', 'negativePrompt'],
  options: epsilonOptions,
  maxInputImages: MAX_INPUT_IMAGES,
  // Contract §2: the source's 180 s timeout.
  timeoutMs: 180_000,
  endpoints: { base: { env: 'SVC_EPSILON_BASE_URL', default: 'https://image.novelai.net' } },
  adapter: {
    specificationVersion: 'v1',
    preflight: (ctx) => void epsilonKey(ctx),
    generate,
  },
  quota: epsilonQuota,
  capabilities: { limits: { epsilonReferences: MAX_INPUT_IMAGES } },
});
