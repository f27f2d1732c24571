import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { SecretRegistry } from '../../../common/secrets.js';
import { callUpstream, readJson, UpstreamError, type VendorError } from '../../upstream/index.js';
import { ALPHA_CLIENT_ID, discoverAlphaIssuer, isTrustedAuthEndpoint } from './issuer.js';
import { readAlphaSession, saveAlphaSession, type AlphaSession } from './session-file.js';
import { abortable } from '../../../common/abortable.js';

// Keeping the alpha session fresh (contract quota-and-status-probes §3.3):
// refresh when the access token expires within 120 s (or after the API
// refused it with a 401), one refresh per session file at a time in this
// process (refresh tokens rotate: a second refresh with the same token would
// kill the session), up to 3 attempts on 429/5xx/network honouring
// Retry-After. A refused refresh token means logging in again, remembered for
// 30 s so a burst of calls does not hammer the issuer. If the file changed
// while refreshing (a login, another process), the newer file wins; if it
// was removed (logout), nothing is written back.

const REFRESH_MARGIN_MS = 120_000;
const REFRESH_TIMEOUT_MS = 30_000;
const REFRESH_ATTEMPTS = 3;
const RETRY_AFTER_CAP_SECONDS = 60;
const LOGIN_REQUIRED_MEMORY_MS = 30_000;
/** The issuer's answers that mean the refresh token is dead. */
const LOGIN_REQUIRED_CODES = new Set(['invalid_grant', 'refresh_token_reused', 'revoked_token']);

/** ALPHA_AUTH_FAILED with `details.reason: login_required`: there is no usable session. */
export function loginRequired(file: string, why: string): ServiceError {
  return new ServiceError('ALPHA_AUTH_FAILED', `${why} Run \`svc alpha login\`.`, {
    details: { lane: 'alpha', file, reason: 'login_required' },
  });
}

export const isLoginRequired = (error: unknown): boolean => error instanceof ServiceError && error.details?.reason === 'login_required';

export const needsRefresh = (session: AlphaSession, now = Date.now()): boolean =>
  session.expiresAt !== undefined && session.expiresAt - REFRESH_MARGIN_MS <= now;

const refreshing = new Map<string, Promise<AlphaSession>>();
/** Refresh tokens the issuer refused lately, by file. */
const refused = new Map<string, { refreshToken: string; until: number }>();

export interface SessionTarget {
  readonly file: string;
  /** The issuer (its discovery names the token endpoint when the file does not). */
  readonly issuerUrl: string;
  /** The studio's secrets: the session's tokens join them before any is sent. */
  readonly secrets?: Pick<SecretRegistry, 'add'>;
}

/**
 * The session to call with. `rejected` is an access token the API just refused with a 401:
 * the file is read again (another process may have refreshed) and refreshed only if it still
 * holds that token. A cancelled job stops waiting at once; the refresh itself goes on (its
 * answer carries the rotated refresh token, which nobody else has).
 */
export async function freshAlphaSession(
  target: SessionTarget,
  options: { rejected?: string; signal?: AbortSignal } = {},
): Promise<AlphaSession> {
  const session = readAlphaSession(target.file);
  if (!session) throw loginRequired(target.file, 'There is no alpha session.');
  const held = (fresh: AlphaSession): AlphaSession => {
    target.secrets?.add(fresh.accessToken, fresh.refreshToken, fresh.idToken);
    return fresh;
  };
  held(session);
  const stale = options.rejected !== undefined ? session.accessToken === options.rejected : needsRefresh(session);
  if (!stale) return session;
  let pending = refreshing.get(target.file);
  if (!pending) {
    pending = refreshSession(target, session).finally(() => refreshing.delete(target.file));
    refreshing.set(target.file, pending);
  }
  return held(await (options.signal ? abortable(pending, options.signal) : pending));
}

const tokenAnswer = lazy(() =>
  z.looseObject({
    access_token: z.string().min(1),
    refresh_token: z.string().optional(),
    id_token: z.string().optional(),
    expires_in: z.union([z.number(), z.string()]).optional(),
  }),
);

/** RFC 6749 §5.2 error bodies: `{error, error_description}`. */
function parseOauthError(body: string): VendorError {
  try {
    const parsed = JSON.parse(body) as { error?: unknown; error_description?: unknown };
    if (typeof parsed.error === 'string')
      return { code: parsed.error, message: typeof parsed.error_description === 'string' ? parsed.error_description : undefined };
  } catch {
    // Below.
  }
  return { message: body.trim().slice(0, 200) || undefined };
}

const transient = (error: unknown): error is UpstreamError =>
  error instanceof UpstreamError &&
  (error.failure === 'network' ||
    error.failure === 'timeout' ||
    (error.failure === 'http' && (error.status === 429 || (error.status ?? 0) >= 500)));

async function tokenEndpointOf(target: SessionTarget, session: AlphaSession): Promise<string> {
  if (session.tokenEndpoint === undefined) return (await discoverAlphaIssuer(target.issuerUrl)).tokenUrl;
  if (!isTrustedAuthEndpoint(session.tokenEndpoint, target.issuerUrl)) {
    throw new ServiceError(
      'ALPHA_AUTH_FAILED',
      'The alpha session file names a token endpoint the studio does not send tokens to; run `svc alpha login` again.',
      { details: { lane: 'alpha', file: target.file, reason: 'untrusted_token_endpoint' } },
    );
  }
  return session.tokenEndpoint;
}

async function refreshSession(target: SessionTarget, session: AlphaSession): Promise<AlphaSession> {
  const { file } = target;
  if (!session.refreshToken) throw loginRequired(file, 'The alpha session expired and holds no refresh token.');
  const memory = refused.get(file);
  if (memory && memory.refreshToken === session.refreshToken && memory.until > Date.now())
    throw loginRequired(file, 'The alpha session could not be refreshed.');
  let tokenUrl: string;
  try {
    tokenUrl = await tokenEndpointOf(target, session);
  } catch (error) {
    throw refreshFailure(file, session, error);
  }
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    client_id: ALPHA_CLIENT_ID,
    refresh_token: session.refreshToken,
  }).toString();
  let answer: z.infer<typeof tokenAnswer> | undefined;
  for (let attempt = 1; answer === undefined; attempt += 1) {
    try {
      answer = await callUpstream(
        {
          lane: 'alpha',
          url: tokenUrl,
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body,
          credentials: [session.refreshToken, session.accessToken],
          timeoutMs: REFRESH_TIMEOUT_MS,
          parseError: parseOauthError,
        },
        (response) => readJson('alpha', response, tokenAnswer, 256 * 1024),
      );
    } catch (error) {
      if (transient(error) && attempt < REFRESH_ATTEMPTS) {
        const waitMs =
          error.retryAfterSeconds !== undefined
            ? Math.min(error.retryAfterSeconds, RETRY_AFTER_CAP_SECONDS) * 1000
            : 100 + Math.random() * 150;
        await sleep(waitMs);
        continue;
      }
      throw refreshFailure(file, session, error);
    }
  }
  const current = readAlphaSession(file);
  if (!current) throw loginRequired(file, 'The alpha session was removed (logout) while it was being refreshed.');
  // Another writer won meanwhile (a login, another process's refresh): its file is newer.
  if (current.accessToken !== session.accessToken) return current;
  const expiresIn = Number(answer.expires_in);
  return saveAlphaSession(
    file,
    {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      idToken: answer.id_token,
      expiresInSeconds: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : undefined,
    },
    { previous: current, tokenEndpoint: tokenUrl },
  );
}

/** A refresh that failed, in our codes: a dead refresh token means logging in again. */
function refreshFailure(file: string, session: AlphaSession, error: unknown): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.failure === 'network')
    return error.as(
      'NETWORK_FAILED',
      `The alpha session could not be refreshed: the sign-in server is unreachable (${error.reason ?? 'network'}).`,
    );
  if (error.failure === 'timeout')
    return error.as('UPSTREAM_TIMEOUT', 'The alpha session could not be refreshed: the sign-in server did not answer in time.');
  if (error.failure === 'http' && (error.status === 401 || LOGIN_REQUIRED_CODES.has(error.vendorCode ?? ''))) {
    refused.set(file, { refreshToken: session.refreshToken ?? '', until: Date.now() + LOGIN_REQUIRED_MEMORY_MS });
    return loginRequired(file, `The alpha session could not be refreshed (${error.vendorCode ?? error.status}).`);
  }
  return new ServiceError('UPSTREAM_FAILED', `Refreshing the alpha session failed: ${error.message}`, {
    details: { ...error.details(), reason: 'refresh_failed' },
    cause: error,
  });
}
