import type { LaneModule } from '../types.js';

// The `delta` lane: one JSON endpoint with a `base_resp` envelope.
// Not built yet: listed, answering LANE_NOT_AVAILABLE.
export const deltaLane: LaneModule = {
  id: 'delta',
  label: 'Delta',
  description: 'Single JSON endpoint with a base_resp envelope.',
  credential: { kind: 'key', namespaces: ['delta'] },
  codes: { missingCredential: 'API_KEY_REQUIRED' },
  models: {
    list: [
      { id: 'image-01', kind: 'image', description: 'Delta image model.' },
      { id: 'image-01-live', kind: 'image', description: 'Delta image model, live variant.' },
    ],
    default: 'image-01',
  },
  controls: ['size'],
  maxInputImages: 1,
  timeoutMs: 300_000,
  endpoints: { base: { env: 'SVC_DELTA_BASE_URL' } },
};
