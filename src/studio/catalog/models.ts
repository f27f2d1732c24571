import { ServiceError } from '../../common/errors.js';
import type { ProviderLaneId } from './lanes.js';

// Every model the studio knows, with its lanes, aliases and compatibility
// mappings. Model resolution for every lane goes through `resolveModel`.

export type ModelKind = 'chat' | 'image' | 'video';

export interface ModelSpec {
  readonly id: string;
  readonly kind: ModelKind;
  readonly lanes: readonly ProviderLaneId[];
  readonly label?: string;
  readonly description: string;
  /** Kept for old clients; still accepted. */
  readonly compatibility?: boolean;
  /** The id sent upstream when it differs from ours. */
  readonly upstreamId?: string;
  /** On the `oauth` lane this id runs as another model. */
  readonly oauthRunsAs?: string;
}

export const MODELS: readonly ModelSpec[] = [
  { id: 'lang-6-luna', kind: 'chat', lanes: ['oauth'], description: 'Default on the oauth lane; plans the image prompt.' },
  { id: 'lang-6-sol', kind: 'chat', lanes: ['oauth'], description: 'Other everyday model on oauth.' },
  { id: 'lang-6-astra', kind: 'chat', lanes: ['oauth', 'api'], description: 'Reasons longest, slowest.' },
  { id: 'lang-5.6-luna', kind: 'chat', lanes: ['api', 'oauth'], oauthRunsAs: 'lang-6-luna', description: 'Default on the api lane.' },
  { id: 'lang-5.6-terra', kind: 'chat', lanes: ['api', 'oauth'], oauthRunsAs: 'lang-6-luna', description: 'api lane model.' },
  { id: 'lang-5.6-sol', kind: 'chat', lanes: ['api', 'oauth'], oauthRunsAs: 'lang-6-sol', description: 'api lane model.' },
  { id: 'lang-5.5', kind: 'chat', lanes: ['api', 'oauth'], oauthRunsAs: 'lang-6-luna', compatibility: true, description: 'Compatibility model.' },
  { id: 'lang-5.4', kind: 'chat', lanes: ['api', 'oauth'], oauthRunsAs: 'lang-6-luna', compatibility: true, description: 'Compatibility model.' },
  { id: 'lang-5.4-mini', kind: 'chat', lanes: ['api', 'oauth'], oauthRunsAs: 'lang-6-luna', compatibility: true, description: 'Compatibility model.' },
  { id: 'lang-image-2', kind: 'image', lanes: [], description: 'The image renderer behind the oauth and api lanes (inside the hosted image tool).' },
  { id: 'alpha-image', kind: 'image', lanes: ['alpha', 'alpha-api'], label: 'Fast', description: 'Fast alpha image model.' },
  { id: 'alpha-image-quality', kind: 'image', lanes: ['alpha', 'alpha-api'], label: 'Best', description: 'Highest-quality alpha image model.' },
  { id: 'alpha-image-2.0', kind: 'image', lanes: ['alpha', 'alpha-api'], description: 'Default alpha image model for new sessions.' },
  { id: 'alpha-video', kind: 'video', lanes: ['alpha', 'alpha-api'], description: 'Base video model: reference-to-video, edit, extension.' },
  { id: 'alpha-video-1.5', kind: 'video', lanes: ['alpha', 'alpha-api'], description: 'Default video model for text-to-video and image-to-video, 1080p where supported.' },
  { id: 'nano-fruit-2', kind: 'image', lanes: ['beta-api', 'cligen'], upstreamId: 'beta-3.1-flash-image', description: 'Flash image model.' },
  { id: 'nano-fruit-pro', kind: 'image', lanes: ['beta-api'], upstreamId: 'beta-3-pro-image', description: 'Pro image model.' },
  { id: 'gamma-image-2', kind: 'image', lanes: ['gamma'], description: 'Gamma text-to-image; with references it runs the edit model.' },
  { id: 'image-01', kind: 'image', lanes: ['delta'], description: 'Delta image model.' },
  { id: 'image-01-live', kind: 'image', lanes: ['delta'], description: 'Delta image model, live variant.' },
  { id: 'epsilon-diffusion-5-full', kind: 'image', lanes: ['epsilon'], description: 'Default epsilon model.' },
  { id: 'epsilon-diffusion-5-curated', kind: 'image', lanes: ['epsilon'], description: 'Epsilon curated model.' },
  { id: 'epsilon-diffusion-4.5-full', kind: 'image', lanes: ['epsilon'], description: 'Epsilon 4.5 model.' },
  { id: 'epsilon-diffusion-4.5-curated', kind: 'image', lanes: ['epsilon'], description: 'Epsilon 4.5 curated model.' },
];

/** Old ids still accepted, and what they mean now. */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  'alpha-video-1.5-preview': 'alpha-video-1.5',
};

/** Each lane's default model; `flow`, `zeta` and `eta` discover theirs at runtime. */
export const DEFAULT_MODELS: Partial<Record<ProviderLaneId, string>> = {
  oauth: 'lang-6-luna',
  api: 'lang-5.6-luna',
  alpha: 'alpha-image-2.0',
  'alpha-api': 'alpha-image-2.0',
  'beta-api': 'nano-fruit-2',
  cligen: 'nano-fruit-2',
  gamma: 'gamma-image-2',
  delta: 'image-01',
  epsilon: 'epsilon-diffusion-5-full',
};

export const DEFAULT_VIDEO_MODEL = 'alpha-video-1.5';
/** The image model the hosted tool renders with on `oauth` and `api`. */
export const LANG_IMAGE_MODEL = 'lang-image-2';

const byId = new Map(MODELS.map((model) => [model.id, model]));

export const findModel = (id: string): ModelSpec | undefined => byId.get(MODEL_ALIASES[id] ?? id);

export const modelsOfLane = (lane: ProviderLaneId): ModelSpec[] => MODELS.filter((model) => model.lanes.includes(lane));

export interface ResolvedModel {
  /** What the client asked for (or the default). */
  readonly requested: string;
  /** Our canonical id after aliases and compatibility mappings. */
  readonly id: string;
  /** The id sent upstream. */
  readonly upstreamId: string;
  readonly spec: ModelSpec;
}

/** The error code a lane uses for an unknown model. */
const INVALID_MODEL_CODE: Partial<Record<ProviderLaneId, 'INVALID_ALPHA_IMAGE_MODEL' | 'INVALID_BETA_API_IMAGE_MODEL'>> = {
  alpha: 'INVALID_ALPHA_IMAGE_MODEL',
  'alpha-api': 'INVALID_ALPHA_IMAGE_MODEL',
  'beta-api': 'INVALID_BETA_API_IMAGE_MODEL',
};

/**
 * Resolves the model a generation runs with on `lane`: aliases, the lane's
 * default, the oauth compatibility mapping. Unknown ids give
 * INVALID_IMAGE_MODEL (or the lane's own code); known ids that cannot make
 * images on this lane give IMAGE_MODEL_UNSUPPORTED.
 */
export function resolveModel(lane: ProviderLaneId, requested: string | undefined, kind: 'image' | 'video' = 'image'): ResolvedModel {
  const wanted = requested ?? (kind === 'video' ? DEFAULT_VIDEO_MODEL : DEFAULT_MODELS[lane]);
  if (!wanted) throw new ServiceError('INVALID_IMAGE_MODEL', `The ${lane} lane has no default model; name one.`);
  const spec = findModel(wanted);
  const valid = modelsOfLane(lane)
    .filter((model) => (kind === 'video' ? model.kind === 'video' : model.kind !== 'video'))
    .map((model) => model.id);
  if (!spec) {
    throw new ServiceError(INVALID_MODEL_CODE[lane] ?? 'INVALID_IMAGE_MODEL', `Unknown model "${wanted}" for the ${lane} lane.`, {
      details: { lane, model: wanted, valid },
    });
  }
  const wrongKind = kind === 'video' ? spec.kind !== 'video' : spec.kind === 'video';
  if (wrongKind || !spec.lanes.includes(lane)) {
    throw new ServiceError('IMAGE_MODEL_UNSUPPORTED', `Model "${spec.id}" cannot generate ${kind === 'video' ? 'video' : 'images'} on the ${lane} lane.`, {
      details: { lane, model: spec.id, valid },
    });
  }
  const runsAs = lane === 'oauth' && spec.oauthRunsAs ? findModel(spec.oauthRunsAs) ?? spec : spec;
  return { requested: wanted, id: runsAs.id, upstreamId: runsAs.upstreamId ?? runsAs.id, spec: runsAs };
}
