import type { CapabilityExtras, ModelSpec } from '../types.js';

// The lang models of the two Responses lanes (spec: Models). Each lane lists
// the ones it runs; on `oauth` the api ids run as the nearest oauth model.

/** The image model the hosted tool renders with on `oauth` and `api`. */
export const LANG_IMAGE_MODEL = 'lang-image-2';

/** What the two Responses lanes add to GET /api/capabilities. */
export const RESPONSES_CAPABILITIES: CapabilityExtras = { defaults: { imageRenderer: LANG_IMAGE_MODEL } };

const lang = (id: string, description: string, extra: Partial<ModelSpec> = {}): ModelSpec => ({ id, kind: 'chat', description, ...extra });

const ASTRA = lang('lang-6-astra', 'Reasons longest, slowest.');

export const API_MODELS: readonly ModelSpec[] = [
  ASTRA,
  lang('lang-5.6-luna', 'Default on the api lane.'),
  lang('lang-5.6-terra', 'api lane model.'),
  lang('lang-5.6-sol', 'api lane model.'),
  lang('lang-5.5', 'Compatibility model.', { compatibility: true }),
  lang('lang-5.4', 'Compatibility model.', { compatibility: true }),
  lang('lang-5.4-mini', 'Compatibility model.', { compatibility: true }),
];

/** What each api id runs as on oauth (sol → lang-6-sol, the rest → lang-6-luna). */
const OAUTH_RUNS_AS: Readonly<Record<string, string>> = {
  'lang-5.6-luna': 'lang-6-luna',
  'lang-5.6-terra': 'lang-6-luna',
  'lang-5.6-sol': 'lang-6-sol',
  'lang-5.5': 'lang-6-luna',
  'lang-5.4': 'lang-6-luna',
  'lang-5.4-mini': 'lang-6-luna',
};

export const OAUTH_MODELS: readonly ModelSpec[] = [
  lang('lang-6-luna', 'Default on the oauth lane; plans the image prompt.'),
  lang('lang-6-sol', 'Other everyday model on oauth.'),
  ASTRA,
  ...API_MODELS.filter((model) => OAUTH_RUNS_AS[model.id]).map((model) => ({ ...model, runsAs: OAUTH_RUNS_AS[model.id] })),
];
