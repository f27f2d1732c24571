import { spec } from '../../../common/error-spec.js';

// The `oauth` lane's codes (the spec's): its chat OAuth session missing or expired.
// Plain data: studio/errors.ts merges it into the one code table.

export const OAUTH_CODES = {
  AUTH_CHATGPT_EXPIRED: spec(401, 'auth', 'The chat OAuth session expired; sign in again.'),
  OAUTH_UNAVAILABLE: spec(401, 'auth', 'No chat OAuth session is available.'),
} as const;
