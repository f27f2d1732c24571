import { spec } from '../../common/error-spec.js';

// The prompt builder's codes (ours: the spec says "a typed error", not which).
// Plain data: studio/errors.ts merges it into the one code table.

export const PROMPT_BUILDER_CODES = {
  PROMPT_BUILDER_BACKEND_UNAVAILABLE: spec(
    503,
    'upstream',
    'The prompt builder backend chosen is not available (no key, no session); there is no fallback.',
  ),
  PROMPT_BUILDER_NO_BACKEND: spec(503, 'upstream', 'No prompt builder backend is ready (auto).'),
  PROMPT_BUILDER_INVALID_MODEL: spec(400, 'bad_request', 'That model is not one of the chosen prompt builder backend.'),
  PROMPT_BUILDER_ENV_LOCKED: spec(
    409,
    'bad_request',
    'An environment variable fixes this prompt builder setting; it cannot be changed through the API.',
  ),
} as const;
