import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

// The alpha vendor's OIDC issuer, simulated: JWT-shaped access and id tokens
// signed with a per-simulator secret (so the API accepts only tokens it
// minted), and rotating refresh tokens (a used, expired or unknown one answers
// `invalid_grant`, which a client reads as "log in again").

export interface AlphaAccount {
  readonly userId: string;
  readonly email: string;
  readonly teamId: string;
}

export const DEFAULT_ALPHA_ACCOUNT: AlphaAccount = {
  userId: 'alpha-user-sim-0001',
  email: 'demo@alpha.sim.local',
  teamId: '7c1e4b0a-2d3f-4e5a-9b8c-0d1e2f3a4b5c',
};

/** The public client id of the vendor's CLI (neutral name; the simulator accepts only it). */
export const ALPHA_CLIENT_ID = 'alpha-cli';

export interface AlphaTokenSet {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly id_token: string;
  readonly token_type: 'Bearer';
  readonly expires_in: number;
  readonly scope: string;
}

export interface AlphaAccessClaims {
  readonly sub: string;
  readonly email: string;
  readonly team_id: string;
  readonly exp: number;
}

export type AlphaAccessCheck = { ok: true; claims: AlphaAccessClaims } | { ok: false; reason: 'invalid' | 'expired' };

export interface MintOptions {
  /** Seconds until the access token expires (negative: already expired). */
  readonly accessTtlSeconds?: number;
  /** Seconds until the refresh token expires (negative: already expired). */
  readonly refreshTtlSeconds?: number;
}

interface RefreshRecord {
  readonly account: AlphaAccount;
  readonly expiresAt: number;
  used: boolean;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const base64url = (value: string) => Buffer.from(value).toString('base64url');
export const ALPHA_SCOPE = 'openid profile email offline_access alpha-cli:access api:access';

export class AlphaTokens {
  private readonly secret = randomBytes(32);
  private readonly refreshTokens = new Map<string, RefreshRecord>();
  /** Refreshes answered, successful or not (tests count them: single-flight). */
  refreshes = 0;

  constructor(
    private readonly issuer: () => string,
    readonly account: AlphaAccount,
    private readonly accessTtlSeconds: number,
    private readonly refreshTtlSeconds: number,
  ) {}

  private sign(payload: Record<string, unknown>): string {
    const head = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'alpha-sim' }));
    const body = base64url(JSON.stringify(payload));
    return `${head}.${body}.${createHmac('sha256', this.secret).update(`${head}.${body}`).digest('base64url')}`;
  }

  /** A fresh token set for `account`. */
  mint(account: AlphaAccount = this.account, options: MintOptions = {}): AlphaTokenSet {
    const iat = nowSeconds();
    const ttl = options.accessTtlSeconds ?? this.accessTtlSeconds;
    const common = { iss: this.issuer(), sub: account.userId, email: account.email, iat, exp: iat + ttl };
    const access_token = this.sign({ ...common, aud: 'alpha-api', team_id: account.teamId, jti: randomUUID(), scope: ALPHA_SCOPE });
    const id_token = this.sign({ ...common, aud: ALPHA_CLIENT_ID, email_verified: true });
    const refresh_token = `alpha_rt_${randomBytes(24).toString('base64url')}`;
    this.refreshTokens.set(refresh_token, { account, expiresAt: iat + (options.refreshTtlSeconds ?? this.refreshTtlSeconds), used: false });
    return { access_token, refresh_token, id_token, token_type: 'Bearer', expires_in: ttl, scope: ALPHA_SCOPE };
  }

  /** Verifies an access token this issuer minted. */
  checkAccess(token: string): AlphaAccessCheck {
    const parts = token.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'invalid' };
    const expected = createHmac('sha256', this.secret).update(`${parts[0]}.${parts[1]}`).digest();
    const given = Buffer.from(parts[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
    let claims: AlphaAccessClaims & { aud?: string };
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as AlphaAccessClaims & { aud?: string };
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (claims.aud !== 'alpha-api') return { ok: false, reason: 'invalid' };
    if (claims.exp <= nowSeconds()) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  /** Rotates a refresh token: the old one is spent, a new set is issued. */
  refresh(token: string): AlphaTokenSet | { error: 'invalid_grant'; description: string } {
    this.refreshes += 1;
    const record = this.refreshTokens.get(token);
    if (!record) return { error: 'invalid_grant', description: 'Unknown refresh token.' };
    if (record.used) return { error: 'invalid_grant', description: 'The refresh token was already used.' };
    if (record.expiresAt <= nowSeconds()) return { error: 'invalid_grant', description: 'The refresh token expired.' };
    record.used = true;
    return this.mint(record.account);
  }
}
