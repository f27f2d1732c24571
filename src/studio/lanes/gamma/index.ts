import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { defineLane } from '../define-lane.js';
import { bearer, jsonObject, keyedGet } from '../key-check.js';
import type { LaneModule } from '../types.js';
import { gammaOptions } from './options.js';
import { GAMMA_UPSTREAM_MODELS } from './protocol.js';
import { gammaSteps } from './run.js';

// The `gamma` lane: an asynchronous "prediction" image API (contract:
// gamma-async-prediction-images). References are uploaded one by one, the
// generation is submitted, its prediction polled, as steps of the job engine;
// the prediction id is kept on the job, so a studio restarted during the poll
// resumes it, within the deadline the job got when it first started.

function gammaKey(ctx: LaneEnv): string {
  const key = ctx.key('gamma');
  if (!key)
    throw new ServiceError(
      'API_KEY_REQUIRED',
      'The gamma lane needs GAMMA_API_KEY: set it in the environment or under "keys".gamma in config.json.',
      { details: { lane: 'gamma', env: 'GAMMA_API_KEY' } },
    );
  return key.value;
}

/** Spec: up to 10 references (an edited image counts as one). */
const MAX_INPUT_IMAGES = 10;

export const gammaLane: LaneModule = defineLane({
  id: 'gamma',
  label: 'Gamma',
  description: 'Direct image generation and edit API (submit, then poll), up to 10 references.',
  credential: { kind: 'key', namespaces: ['gamma'] },
  // Contract §1: `GET /models`, any 2xx = valid, when it is the vendor's JSON (a portal's page proves nothing).
  keyChecks: { gamma: { verify: keyedGet('gamma', '/models', bearer, jsonObject) } },
  codes: {
    missingCredential: 'API_KEY_REQUIRED',
    tooManyReferences: 'GAMMA_REF_TOO_MANY',
    answers: [
      'AUTH_API_KEY_INVALID',
      'RATE_LIMITED',
      'GAMMA_UPLOAD_FAILED',
      'GAMMA_UPLOAD_NO_URL',
      'GAMMA_NO_PREDICTION_ID',
      'GAMMA_GENERATION_FAILED',
      'GAMMA_OUTPUT_DOWNLOAD_FAILED',
      'GENERATION_TIMEOUT',
      'UPSTREAM_FAILED',
      'UPSTREAM_PROTOCOL_ERROR',
      'NETWORK_FAILED',
    ],
  },
  models: {
    list: [
      {
        id: 'gamma-image-2',
        kind: 'image',
        upstreamId: GAMMA_UPSTREAM_MODELS.textToImage,
        description: 'Gamma text-to-image; with references (or an edited image) it runs the edit model.',
      },
    ],
    default: 'gamma-image-2',
  },
  controls: ['quality', 'size', 'format'],
  options: gammaOptions,
  maxInputImages: MAX_INPUT_IMAGES,
  // Contract §4: the source's overall deadline of 180 s.
  timeoutMs: 180_000,
  endpoints: { base: { env: 'SVC_GAMMA_BASE_URL', default: 'https://api.atlascloud.ai/api/v1' } },
  adapter: {
    specificationVersion: 'v1',
    preflight: (ctx) => void gammaKey(ctx),
    steps: gammaSteps(gammaKey),
  },
  capabilities: { limits: { gammaReferences: MAX_INPUT_IMAGES } },
});
