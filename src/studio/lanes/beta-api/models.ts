import type { ModelSpec } from '../types.js';

// The beta vendor's image models (spec: Models); `cligen` runs the flash one too.
export const NANO_FRUIT_2: ModelSpec = {
  id: 'nano-fruit-2',
  kind: 'image',
  upstreamId: 'beta-3.1-flash-image',
  description: 'Flash image model.',
};
export const NANO_FRUIT_PRO: ModelSpec = {
  id: 'nano-fruit-pro',
  kind: 'image',
  upstreamId: 'beta-3-pro-image',
  description: 'Pro image model.',
};
