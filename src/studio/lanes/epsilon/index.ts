import type { LaneModule } from '../types.js';

// The `epsilon` lane: text-to-image only, with a negative prompt and native
// sampling controls; references and edits fail closed with its own codes.
// Not built yet: listed, answering LANE_NOT_AVAILABLE.
export const epsilonLane: LaneModule = {
  id: 'epsilon',
  label: 'Epsilon',
  description: 'Text-to-image only, with a negative prompt and native sampling controls.',
  credential: { kind: 'key', namespaces: ['epsilon'] },
  codes: {
    missingCredential: 'API_KEY_REQUIRED',
    maskUnsupported: 'EPSILON_MASK_UNSUPPORTED',
    editUnsupported: 'EPSILON_EDIT_UNSUPPORTED',
    tooManyReferences: 'EPSILON_REF_UNSUPPORTED',
  },
  models: {
    list: [
      { id: 'epsilon-diffusion-5-full', kind: 'image', description: 'Default epsilon model.' },
      { id: 'epsilon-diffusion-5-curated', kind: 'image', description: 'Epsilon curated model.' },
      { id: 'epsilon-diffusion-4.5-full', kind: 'image', description: 'Epsilon 4.5 model.' },
      { id: 'epsilon-diffusion-4.5-curated', kind: 'image', description: 'Epsilon 4.5 curated model.' },
    ],
    default: 'epsilon-diffusion-5-full',
  },
  controls: ['size', 'negativePrompt'],
  maxInputImages: 0,
  timeoutMs: 180_000,
  endpoints: { base: { env: 'SVC_EPSILON_BASE_URL' } },
};
