import type { LaneModule, ModelSpec } from '../types.js';

// The `alpha` and `alpha-api` lanes: the same pipeline (mandatory web search,
// a planner pass, then the image API), one with an OAuth session kept in a
// local auth file, one with ALPHA_API_KEY. Not built yet: listed, and
// answering LANE_NOT_AVAILABLE until their adapter lands.

const MODELS: readonly ModelSpec[] = [
  { id: 'alpha-image', kind: 'image', label: 'Fast', description: 'Fast alpha image model.' },
  { id: 'alpha-image-quality', kind: 'image', label: 'Best', description: 'Highest-quality alpha image model.' },
  { id: 'alpha-image-2.0', kind: 'image', description: 'Default alpha image model for new sessions.' },
  { id: 'alpha-video', kind: 'video', description: 'Base video model: reference-to-video, edit, extension.' },
  { id: 'alpha-video-1.5', kind: 'video', description: 'Default video model for text-to-video and image-to-video, 1080p where supported.' },
];

const shared = {
  models: { list: MODELS, default: 'alpha-image-2.0', defaultVideo: 'alpha-video-1.5', aliases: { 'alpha-video-1.5-preview': 'alpha-video-1.5' } },
  controls: ['quality', 'size', 'format'],
  // Spec: at most three input images in total (references, node parent image, agent current image).
  maxInputImages: 3,
  timeoutMs: 300_000,
  endpoints: { base: { env: 'SVC_ALPHA_BASE_URL' } },
} as const satisfies Partial<LaneModule>;

const codes = {
  invalidModel: 'INVALID_ALPHA_IMAGE_MODEL',
  maskUnsupported: 'ALPHA_MASK_UNSUPPORTED',
  tooManyReferences: 'ALPHA_REF_TOO_MANY',
  answers: ['ALPHA_RATE_LIMITED', 'ALPHA_SEARCH_TIMEOUT', 'ALPHA_PLANNER_TIMEOUT', 'ALPHA_IMAGE_TIMEOUT'],
} as const;

export const alphaLane: LaneModule = {
  id: 'alpha',
  label: 'Alpha',
  description: 'Alpha with its OAuth session: web search, planner pass, then the image API.',
  credential: { kind: 'oauth-session', session: 'alpha', fileEnv: 'SVC_ALPHA_AUTH_FILE', remedy: 'run `svc alpha login`' },
  codes: { ...codes, missingCredential: 'ALPHA_AUTH_FAILED' },
  ...shared,
};

export const alphaApiLane: LaneModule = {
  id: 'alpha-api',
  label: 'Alpha API',
  description: 'The alpha pipeline authenticated by ALPHA_API_KEY.',
  credential: { kind: 'key', namespaces: ['alpha'] },
  codes: { ...codes, missingCredential: 'API_KEY_REQUIRED' },
  ...shared,
};
