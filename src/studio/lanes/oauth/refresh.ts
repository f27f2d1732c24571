import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { callUpstream, readJson, UpstreamError } from '../../upstream/index.js';
import { readChatSession, readChatSessionSync, writeRefreshedSession, type ChatSession, type RefreshedTokens } from './auth-file.js';
import { accountIdClaim, jwtExpiresAt } from './jwt.js';
import { abortable } from '../../../common/abortable.js';

// Keeping the chat session fresh: refresh at `{issuer}/oauth/token` when the
// access token is about to expire (or the session is older than the CLI's
// 8 days), or after a 401; one refresh per session file at a time, because
// refresh tokens rotate and reusing one kills the session.

/** The chat CLI's public OAuth client id (contract §2). */
export const CHAT_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
/** Refresh this long before `exp`, so a token cannot expire mid-call. */
const EXPIRY_MARGIN_MS = 60_000;
/** The CLI refreshes proactively once `last_refresh` is older than this. */
const MAX_SESSION_AGE_MS = 8 * 24 * 3600 * 1000;
const REFRESH_TIMEOUT_MS = 30_000;
const PERMANENT_CODES = new Set(['refresh_token_expired', 'refresh_token_reused', 'refresh_token_invalidated', 'invalid_grant']);

const refreshing = new Map<string, Promise<ChatSession>>();

export function needsRefresh(session: ChatSession, now = Date.now()): boolean {
  const expiresAt = jwtExpiresAt(session.accessToken);
  if (expiresAt !== undefined && expiresAt - EXPIRY_MARGIN_MS <= now) return true;
  const last = session.lastRefresh ? Date.parse(session.lastRefresh) : NaN;
  return !Number.isNaN(last) && now - last > MAX_SESSION_AGE_MS;
}

/**
 * The session to call with. `rejected` is the access token the backend just
 * refused with a 401: re-read the file first (another process may have
 * refreshed), and refresh only if it still holds that token. A job that is
 * cancelled stops waiting at once, but the refresh itself is never aborted:
 * the issuer rotates the refresh token, and an answer not read would lose the
 * session for everyone.
 */
export async function usableSession(ctx: LaneEnv, options: { rejected?: string; signal?: AbortSignal } = {}): Promise<ChatSession> {
  const file = ctx.sessionFile('oauth');
  const usable = (session: ChatSession) =>
    options.rejected !== undefined ? session.accessToken !== options.rejected : !needsRefresh(session);
  const session = held(ctx, await readChatSession(file));
  if (usable(session)) return session;
  let pending = refreshing.get(file);
  if (!pending) {
    // Read again, synchronously, between the check and the claim: a refresh
    // that ended while the file was read above has already rotated the token
    // this session holds, and refreshing with it would end the session.
    const current = held(ctx, readChatSessionSync(file));
    if (usable(current)) return current;
    pending = refreshSession(ctx, current).finally(() => refreshing.delete(file));
    refreshing.set(file, pending);
  }
  return held(ctx, await (options.signal ? abortable(pending, options.signal) : pending));
}

/** The session's tokens join the studio's secrets before any of them is sent. */
function held(ctx: LaneEnv, session: ChatSession): ChatSession {
  ctx.secrets.add(session.accessToken, session.refreshToken, session.idToken);
  return session;
}

const tokensSchema = lazy(() =>
  z
    .object({ access_token: z.string().optional(), refresh_token: z.string().optional(), id_token: z.string().optional() })
    .passthrough()
    .refine((tokens) => tokens.access_token !== undefined || tokens.id_token !== undefined, { message: 'no access_token or id_token' }),
);

async function refreshSession(ctx: LaneEnv, session: ChatSession): Promise<ChatSession> {
  if (!session.refreshToken)
    throw new ServiceError('AUTH_CHATGPT_EXPIRED', 'The chat session expired and holds no refresh token; sign in again.');
  let tokens: RefreshedTokens;
  try {
    tokens = await callUpstream(
      {
        lane: 'oauth',
        url: `${ctx.upstreamUrl('oauth', 'issuer')}/oauth/token`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ client_id: CHAT_CLIENT_ID, grant_type: 'refresh_token', refresh_token: session.refreshToken }),
        credentials: [session.refreshToken, session.accessToken],
        timeoutMs: REFRESH_TIMEOUT_MS,
      },
      (response) => readJson('oauth', response, tokensSchema, 1024 * 1024),
    );
  } catch (error) {
    throw refreshFailure(error);
  }
  writeRefreshedSession(session, tokens, accountIdClaim(tokens.id_token, tokens.access_token));
  return readChatSession(session.file);
}

/** A refresh that failed, in our codes: a dead refresh token means signing in again. */
function refreshFailure(error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.failure === 'timeout' || error.failure === 'network') {
    return error.as(
      error.failure === 'timeout' ? 'UPSTREAM_TIMEOUT' : 'NETWORK_FAILED',
      `The chat session could not be refreshed: the sign-in server ${error.failure === 'timeout' ? 'did not answer in time' : 'is unreachable'}.`,
    );
  }
  if (error.failure === 'protocol')
    return error.as('UPSTREAM_FAILED', `The sign-in server answered the refresh with something unusable (${error.message}).`);
  if (error.status === 401 || PERMANENT_CODES.has(error.vendorCode ?? '')) {
    return error.as('AUTH_CHATGPT_EXPIRED', 'The chat session expired and could not be refreshed; sign in again.');
  }
  return error.as('UPSTREAM_FAILED', `Refreshing the chat session failed (${error.status}); try again.`);
}
