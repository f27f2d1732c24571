import type { LaneModule } from '../types.js';

// The `gamma` lane: direct image generation and edit API (submit, poll).
// Not built yet: listed, answering LANE_NOT_AVAILABLE.
export const gammaLane: LaneModule = {
  id: 'gamma',
  label: 'Gamma',
  description: 'Direct image generation and edit API.',
  credential: { kind: 'key', namespaces: ['gamma'] },
  codes: { missingCredential: 'API_KEY_REQUIRED' },
  models: { list: [{ id: 'gamma-image-2', kind: 'image', description: 'Gamma text-to-image; with references it runs the edit model.' }], default: 'gamma-image-2' },
  controls: ['quality', 'size'],
  maxInputImages: 10,
  timeoutMs: 300_000,
  endpoints: { base: { env: 'SVC_GAMMA_BASE_URL' } },
};
