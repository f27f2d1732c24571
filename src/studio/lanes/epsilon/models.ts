import type { ModelSpec } from '../types.js';

// The epsilon vendor's image models. Version 5 takes the quality preset and
// straight alpha; version 4.5 runs the standard preset and no straight alpha.

const model = (id: string, upstreamId: string, description: string): ModelSpec => ({ id, kind: 'image', upstreamId, description });

export const EPSILON_MODELS: readonly ModelSpec[] = [
  model('epsilon-diffusion-5-full', 'epsilon-diffusion-5-full', 'Default epsilon model (version 5).'),
  model('epsilon-diffusion-5-curated', 'epsilon-diffusion-5-curated', 'Epsilon curated model (version 5).'),
  model('epsilon-diffusion-4.5-full', 'epsilon-diffusion-4-5-full', 'Epsilon 4.5 model.'),
  model('epsilon-diffusion-4.5-curated', 'epsilon-diffusion-4-5-curated', 'Epsilon 4.5 curated model.'),
];

export const EPSILON_DEFAULT_MODEL = 'epsilon-diffusion-5-full';

/** Whether a model (our id) is version 5. */
export const isVersion5 = (id: string): boolean => id.startsWith('epsilon-diffusion-5-');
