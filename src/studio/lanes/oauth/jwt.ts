// Reading (never verifying) the claims of the session's JWTs: we only need the
// expiry and the account id, and the upstream is the one that verifies.

export type JwtClaims = Record<string, unknown>;

export function jwtClaims(token: string | undefined): JwtClaims | undefined {
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    return claims && typeof claims === 'object' ? (claims as JwtClaims) : undefined;
  } catch {
    return undefined;
  }
}

/** Expiry in ms since the epoch; undefined when the token is not a JWT or has no `exp`. */
export function jwtExpiresAt(token: string | undefined): number | undefined {
  const exp = jwtClaims(token)?.exp;
  return typeof exp === 'number' ? exp * 1000 : undefined;
}

/** The account id claim (`https://api.openai.com/auth`.`chatgpt_account_id`) of the id or access token. */
export function accountIdClaim(...tokens: (string | undefined)[]): string | undefined {
  for (const token of tokens) {
    const auth = jwtClaims(token)?.['https://api.openai.com/auth'];
    const id = auth && typeof auth === 'object' ? (auth as Record<string, unknown>).chatgpt_account_id : undefined;
    if (typeof id === 'string' && id) return id;
  }
  return undefined;
}
