import { ServiceError } from '../../errors.js';
import type { OauthStatusBody } from '../../api/auth.js';
import type { LaneEnv } from '../env.js';
import { readChatSessionSync } from './auth-file.js';
import { accountIdClaim, jwtClaims, jwtExpiresAt } from './jwt.js';
import { needsRefresh } from './refresh.js';

// `GET /api/oauth/status`: the chat session the `oauth` lane uses, by the same
// readiness rule as the lane (present = it would run), with its account and
// expiry read from the tokens' claims. Never a token.

export function oauthStatus(ctx: LaneEnv): OauthStatusBody {
  const file = ctx.sessionFile('oauth');
  let session;
  try {
    session = readChatSessionSync(file);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return {
      present: false,
      file,
      account: null,
      expiresAt: null,
      lastRefresh: null,
      needsRefresh: false,
      refreshable: false,
      reason: error.message,
    };
  }
  const claims = jwtClaims(session.idToken) ?? {};
  const auth = (claims['https://api.openai.com/auth'] ?? jwtClaims(session.accessToken)?.['https://api.openai.com/auth']) as
    Record<string, unknown> | undefined;
  const expiresAt = jwtExpiresAt(session.accessToken);
  return {
    present: true,
    file,
    account: {
      email: typeof claims.email === 'string' ? claims.email : null,
      plan: typeof auth?.chatgpt_plan_type === 'string' ? auth.chatgpt_plan_type : null,
      accountId: session.accountId ?? accountIdClaim(session.idToken, session.accessToken) ?? null,
    },
    expiresAt: expiresAt === undefined ? null : new Date(expiresAt).toISOString(),
    lastRefresh: session.lastRefresh ?? null,
    needsRefresh: needsRefresh(session),
    refreshable: Boolean(session.refreshToken),
  };
}
