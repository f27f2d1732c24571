import { z } from 'zod';
import type { LaneModule } from '../types.js';
import { BETA_ASPECT_RATIOS, BETA_RESOLUTION_TIERS } from './controls.js';
import { NANO_FRUIT_2, NANO_FRUIT_PRO } from './models.js';

// The `beta-api` lane: the direct `:generateContent` image API, by API key or
// service account (`cloud`). Not built yet: listed, answering LANE_NOT_AVAILABLE.

export const betaApiLane: LaneModule = {
  id: 'beta-api',
  label: 'Beta API',
  description: 'The direct image API with aspect ratio and resolution tiers.',
  credential: { kind: 'key', namespaces: ['beta', 'cloud'] },
  codes: {
    missingCredential: 'BETA_API_KEY_MISSING',
    invalidModel: 'INVALID_BETA_API_IMAGE_MODEL',
    answers: ['BETA_API_RATE_LIMITED', 'BETA_API_SAFETY_BLOCKED', 'BETA_API_NO_IMAGE', 'GENERATION_TIMEOUT'],
  },
  models: { list: [NANO_FRUIT_2, NANO_FRUIT_PRO], default: NANO_FRUIT_2.id },
  controls: [],
  options: z.object({ aspectRatio: z.enum(BETA_ASPECT_RATIOS).optional(), resolution: z.enum(BETA_RESOLUTION_TIERS).optional() }).strict(),
  maxInputImages: 14,
  multimode: false,
  // Spec: generation timeout 120 seconds.
  timeoutMs: 120_000,
  endpoints: { base: { env: 'SVC_BETA_BASE_URL' } },
};
