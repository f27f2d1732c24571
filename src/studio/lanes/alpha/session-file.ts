import { existsSync, readFileSync, rmSync } from 'node:fs';
import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { writeJsonFile } from '../../../common/json-file.js';
import { jwtClaims } from '../oauth/jwt.js';

// The alpha OAuth session file (contract quota-and-status-probes §3.2): one
// JSON object, only `accessToken` required; `expiresAt` in epoch ms. Written
// atomically (temp + rename) with mode 0600 (a missing folder is made 0700),
// unknown keys kept on rewrite, never deleted except by logout.
//
// The interface others use (the lane, the status probe, login, keys and quota):
//   readAlphaSession(file)            the session, or undefined when there is no file
//   saveAlphaSession(file, tokens, …) writes a login's or a refresh's tokens
//   removeAlphaSession(file)          logout
// Keeping it fresh (refresh before expiry, single-flight) is session.ts.

const sessionSchema = lazy(() =>
  z.looseObject({
    accessToken: z.string().min(1),
    refreshToken: z.string().min(1).optional(),
    expiresAt: z.number().optional(),
    tokenEndpoint: z.string().optional(),
    email: z.string().optional(),
    idToken: z.string().optional(),
    accountId: z.string().optional(),
  }),
);

export interface AlphaSession {
  readonly file: string;
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Epoch ms; absent when the token answer had no `expires_in` (a 401 is then the only expiry signal). */
  readonly expiresAt?: number;
  readonly tokenEndpoint?: string;
  readonly email?: string;
  readonly idToken?: string;
  readonly accountId?: string;
  /** The whole file, so a rewrite keeps what it does not know. */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** The session, or undefined when the file does not exist; ALPHA_AUTH_FAILED when it cannot be used. */
export function readAlphaSession(file: string): AlphaSession | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ServiceError('ALPHA_AUTH_FAILED', `The alpha session file cannot be read (${code}).`, {
      details: { file, reason: 'unreadable' },
    });
  }
  let parsed: z.infer<typeof sessionSchema>;
  try {
    parsed = sessionSchema.parse(JSON.parse(text));
  } catch {
    throw new ServiceError('ALPHA_AUTH_FAILED', 'The alpha session file is not valid (no accessToken); run `svc alpha login` again.', {
      details: { file, reason: 'invalid' },
    });
  }
  const { accessToken, refreshToken, expiresAt, tokenEndpoint, email, idToken, accountId } = parsed;
  return { file, accessToken, refreshToken, expiresAt, tokenEndpoint, email, idToken, accountId, raw: parsed };
}

/** Tokens a login or a refresh returned (the token endpoint's fields). */
export interface AlphaTokenAnswer {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly idToken?: string;
  readonly expiresInSeconds?: number;
}

/**
 * Writes tokens as the session: `previous` (a refresh) keeps its unknown keys and its refresh
 * token when no new one came; `email` and `accountId` come from the id (or access) token's
 * unverified claims.
 */
export function saveAlphaSession(
  file: string,
  tokens: AlphaTokenAnswer,
  options: { tokenEndpoint?: string; previous?: AlphaSession; now?: number } = {},
): AlphaSession {
  const claims = jwtClaims(tokens.idToken) ?? jwtClaims(tokens.accessToken) ?? {};
  const claim = (name: string) => (typeof claims[name] === 'string' && claims[name] !== '' ? (claims[name] as string) : undefined);
  const previous = options.previous?.raw ?? {};
  const next: Record<string, unknown> = { ...previous, accessToken: tokens.accessToken };
  const refreshToken = tokens.refreshToken ?? options.previous?.refreshToken;
  if (refreshToken) next.refreshToken = refreshToken;
  if (tokens.expiresInSeconds !== undefined) next.expiresAt = (options.now ?? Date.now()) + tokens.expiresInSeconds * 1000;
  else delete next.expiresAt;
  const tokenEndpoint = options.tokenEndpoint ?? options.previous?.tokenEndpoint;
  if (tokenEndpoint) next.tokenEndpoint = tokenEndpoint;
  const idToken = tokens.idToken ?? options.previous?.idToken;
  if (idToken) next.idToken = idToken;
  const email = claim('email') ?? options.previous?.email;
  if (email) next.email = email;
  const accountId = claim('sub') ?? options.previous?.accountId;
  if (accountId) next.accountId = accountId;
  writeJsonFile(file, next, { private: true });
  return readAlphaSession(file) as AlphaSession;
}

/** Logout: answers whether there was a session to remove. */
export function removeAlphaSession(file: string): boolean {
  if (!existsSync(file)) return false;
  rmSync(file, { force: true });
  return true;
}
