import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

// The simulated subscription issuer: JWT-shaped access and id tokens signed
// with a per-simulator secret (so the backend accepts only tokens it minted),
// rotating refresh tokens (a reused one fails `refresh_token_reused`), and
// one-time authorization codes for a later device/browser login.

export interface SimAccount {
  readonly accountId: string;
  readonly userId: string;
  readonly email: string;
  readonly planType: string;
}

export const DEFAULT_ACCOUNT: SimAccount = {
  accountId: '5f4e3d2c-1b0a-4c9d-8e7f-6a5b4c3d2e1f',
  userId: 'user-sim0000000000000000000001',
  email: 'demo@sim.local',
  planType: 'plus',
};

/** The client id the vendor CLI sends (contract §2). */
export const CLI_CLIENT_ID = 'app_EMoamEEZ73f0CkXaXp7hrann';
/** Claim namespaces the vendor's tokens carry (contract §2). */
export const AUTH_CLAIM = 'https://api.openai.com/auth';
export const PROFILE_CLAIM = 'https://api.openai.com/profile';

export interface TokenSet {
  readonly id_token: string;
  readonly access_token: string;
  readonly refresh_token: string;
  readonly expires_in: number;
}

export interface AccessClaims {
  readonly exp: number;
  readonly iat: number;
  readonly jti: string;
  readonly [AUTH_CLAIM]: {
    readonly chatgpt_account_id: string;
    readonly chatgpt_plan_type: string;
    readonly chatgpt_user_id: string;
    readonly user_id: string;
  };
}

export type AccessCheck = { ok: true; claims: AccessClaims } | { ok: false; reason: 'missing' | 'invalid' | 'expired' | 'revoked' };

export type RefreshFailure = 'refresh_token_expired' | 'refresh_token_reused' | 'refresh_token_invalidated';

interface RefreshRecord {
  readonly account: SimAccount;
  readonly expiresAt: number;
  state: 'active' | 'used' | 'revoked';
}

interface CodeRecord {
  readonly account: SimAccount;
  readonly challenge: string | undefined;
  readonly expiresAt: number;
}

export interface MintOptions {
  /** Seconds from now until the access token expires (negative = already expired). */
  readonly accessTtlSeconds?: number;
  /** Seconds from now until the refresh token expires (negative = already expired). */
  readonly refreshTtlSeconds?: number;
}

const base64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');
const nowSeconds = () => Math.floor(Date.now() / 1000);
const AUTH_CODE_TTL_SECONDS = 600;

export class TokenAuthority {
  private readonly secret = randomBytes(32);
  private readonly refreshTokens = new Map<string, RefreshRecord>();
  private readonly codes = new Map<string, CodeRecord>();
  private readonly revokedAccess = new Set<string>();

  constructor(
    private readonly issuer: () => string,
    readonly account: SimAccount,
    private readonly accessTtlSeconds: number,
    private readonly refreshTtlSeconds: number,
  ) {}

  private sign(payload: Record<string, unknown>): string {
    const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'sim' }));
    const body = base64url(JSON.stringify(payload));
    const signature = createHmac('sha256', this.secret).update(`${header}.${body}`).digest('base64url');
    return `${header}.${body}.${signature}`;
  }

  private authClaims(account: SimAccount) {
    return {
      chatgpt_account_id: account.accountId,
      chatgpt_plan_type: account.planType,
      chatgpt_user_id: account.userId,
      user_id: account.userId,
    };
  }

  /** A fresh id/access/refresh set for `account`. */
  mint(account: SimAccount = this.account, options: MintOptions = {}): TokenSet {
    const iat = nowSeconds();
    const accessTtl = options.accessTtlSeconds ?? this.accessTtlSeconds;
    const access_token = this.sign({
      iss: this.issuer(),
      aud: ['sim-backend'],
      sub: account.userId,
      iat,
      nbf: iat,
      exp: iat + accessTtl,
      jti: randomUUID(),
      scp: ['openid', 'profile', 'email', 'offline_access'],
      [AUTH_CLAIM]: this.authClaims(account),
      [PROFILE_CLAIM]: { email: account.email, email_verified: true },
    });
    const id_token = this.sign({
      iss: this.issuer(),
      aud: [CLI_CLIENT_ID],
      sub: account.userId,
      iat,
      exp: iat + accessTtl,
      email: account.email,
      email_verified: true,
      [AUTH_CLAIM]: this.authClaims(account),
    });
    const refresh_token = `rt_sim_${randomBytes(24).toString('base64url')}`;
    this.refreshTokens.set(refresh_token, {
      account,
      expiresAt: iat + (options.refreshTtlSeconds ?? this.refreshTtlSeconds),
      state: 'active',
    });
    return { id_token, access_token, refresh_token, expires_in: accessTtl };
  }

  /** Verifies an access token this authority minted. */
  checkAccess(token: string | undefined): AccessCheck {
    if (!token) return { ok: false, reason: 'missing' };
    const parts = token.split('.');
    if (parts.length !== 3) return { ok: false, reason: 'invalid' };
    const expected = createHmac('sha256', this.secret).update(`${parts[0]}.${parts[1]}`).digest();
    const given = Buffer.from(parts[2], 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
    let claims: AccessClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8')) as AccessClaims;
    } catch {
      return { ok: false, reason: 'invalid' };
    }
    if (!claims[AUTH_CLAIM]) return { ok: false, reason: 'invalid' };
    if (this.revokedAccess.has(claims.jti)) return { ok: false, reason: 'revoked' };
    if (claims.exp <= nowSeconds()) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  /** Rotates a refresh token: the old one becomes used, a new set is issued. */
  refresh(token: string): TokenSet | RefreshFailure {
    const record = this.refreshTokens.get(token);
    if (!record || record.state === 'revoked') return 'refresh_token_invalidated';
    if (record.state === 'used') return 'refresh_token_reused';
    if (record.expiresAt <= nowSeconds()) return 'refresh_token_expired';
    record.state = 'used';
    return this.mint(record.account);
  }

  /** Revokes a refresh or access token (logout). Unknown tokens are ignored, as RFC 7009 asks. */
  revoke(token: string): void {
    const record = this.refreshTokens.get(token);
    if (record) {
      record.state = 'revoked';
      return;
    }
    const check = this.checkAccess(token);
    if (check.ok) this.revokedAccess.add(check.claims.jti);
  }

  /** A one-time code for the authorization_code grant (S256 PKCE when a challenge is given). */
  issueAuthorizationCode(account: SimAccount = this.account, codeChallenge?: string): string {
    const code = `ac_sim_${randomBytes(18).toString('base64url')}`;
    this.codes.set(code, { account, challenge: codeChallenge, expiresAt: nowSeconds() + AUTH_CODE_TTL_SECONDS });
    return code;
  }

  exchangeCode(code: string, verifier: string | undefined): TokenSet | 'invalid_grant' {
    const record = this.codes.get(code);
    this.codes.delete(code);
    if (!record || record.expiresAt <= nowSeconds()) return 'invalid_grant';
    if (record.challenge) {
      const computed = verifier ? createHash('sha256').update(verifier).digest('base64url') : '';
      if (computed !== record.challenge) return 'invalid_grant';
    }
    return this.mint(record.account);
  }
}

/** The vendor CLI's auth.json layout (contract §2). */
export interface OauthAuthFile {
  readonly auth_mode: 'chatgpt';
  readonly OPENAI_API_KEY: null;
  readonly tokens: {
    readonly id_token: string;
    readonly access_token: string;
    readonly refresh_token: string;
    readonly account_id: string;
  };
  readonly last_refresh: string;
}

/** The CLI refreshes proactively once `last_refresh` is older than this (contract §2). */
export const PROACTIVE_REFRESH_DAYS = 8;
