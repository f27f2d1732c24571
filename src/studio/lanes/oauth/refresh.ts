import { ServiceError } from '../../../common/errors.js';
import type { StudioContext } from '../../context.js';
import { parseUpstreamError } from '../responses/errors.js';
import { readChatSession, writeRefreshedSession, type ChatSession, type RefreshedTokens } from './auth-file.js';
import { accountIdClaim, jwtExpiresAt } from './jwt.js';

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
 * refreshed), and refresh only if it still holds that token.
 */
export async function usableSession(ctx: StudioContext, options: { rejected?: string } = {}): Promise<ChatSession> {
  const file = ctx.oauthAuthFile();
  const session = await readChatSession(file);
  if (options.rejected !== undefined ? session.accessToken !== options.rejected : !needsRefresh(session)) return session;
  let pending = refreshing.get(file);
  if (!pending) {
    pending = refreshSession(ctx, session).finally(() => refreshing.delete(file));
    refreshing.set(file, pending);
  }
  return pending;
}

async function refreshSession(ctx: StudioContext, session: ChatSession): Promise<ChatSession> {
  if (!session.refreshToken) throw new ServiceError('AUTH_CHATGPT_EXPIRED', 'The chat session expired and holds no refresh token; sign in again.');
  const issuer = (ctx.upstreamUrl('oauthIssuer') ?? '').replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ client_id: CHAT_CLIENT_ID, grant_type: 'refresh_token', refresh_token: session.refreshToken }),
      signal: AbortSignal.timeout(REFRESH_TIMEOUT_MS),
    });
  } catch (error) {
    const timedOut = (error as Error)?.name === 'TimeoutError';
    throw new ServiceError(timedOut ? 'UPSTREAM_TIMEOUT' : 'NETWORK_FAILED', `The chat session could not be refreshed: the sign-in server ${timedOut ? 'did not answer in time' : 'is unreachable'}.`, { cause: error });
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) {
    const info = parseUpstreamError(response.status, text);
    if (response.status === 401 || PERMANENT_CODES.has(info.code ?? '')) {
      throw new ServiceError('AUTH_CHATGPT_EXPIRED', 'The chat session expired and could not be refreshed; sign in again.', { details: { upstreamStatus: response.status, upstreamCode: info.code } });
    }
    throw new ServiceError('UPSTREAM_FAILED', `Refreshing the chat session failed (${response.status}); try again.`, { details: { upstreamStatus: response.status, upstreamCode: info.code } });
  }
  let tokens: RefreshedTokens;
  try {
    tokens = JSON.parse(text) as RefreshedTokens;
  } catch {
    throw new ServiceError('UPSTREAM_FAILED', 'The sign-in server answered the refresh with something that is not JSON.');
  }
  if (typeof tokens.access_token !== 'string' && typeof tokens.id_token !== 'string') {
    throw new ServiceError('UPSTREAM_FAILED', 'The sign-in server answered the refresh without tokens.');
  }
  writeRefreshedSession(session, tokens, accountIdClaim(tokens.id_token, tokens.access_token));
  return readChatSession(session.file);
}
