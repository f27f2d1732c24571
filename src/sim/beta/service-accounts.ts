import { createVerify, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';

const generateRsaKeyPair = promisify(generateKeyPair);

// The simulated identity side of the cloud surface (contract §8): service
// accounts with real RSA keys, the JWT-bearer assertions they sign, and the
// access tokens the token endpoint mints for them. Signatures are really
// verified, so a lane that signs wrongly fails here as it would upstream.

export const CLOUD_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The vendor's own token URL: assertions may name it as their audience even when sent to us. */
export const VENDOR_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** Longest assertion lifetime, and the clock skew tolerated on `iat`. */
const MAX_ASSERTION_SECONDS = 3600;
const SKEW_SECONDS = 60;

/** The key file a user downloads (contract §8), as the vendor writes it. */
export interface ServiceAccountKeyFile {
  readonly type: 'service_account';
  readonly project_id: string;
  readonly private_key_id: string;
  readonly private_key: string;
  readonly client_email: string;
  readonly client_id: string;
  readonly auth_uri: string;
  readonly token_uri: string;
  readonly auth_provider_x509_cert_url: string;
  readonly client_x509_cert_url: string;
  readonly universe_domain: string;
}

interface Account {
  readonly email: string;
  readonly projectId: string;
  readonly publicKey: KeyObject;
}

interface IssuedToken {
  readonly email: string;
  readonly projectId: string;
  readonly expiresAt: number;
}

export type TokenCheck =
  { ok: true; projectId: string; email: string } | { ok: false; reason: 'ACCESS_TOKEN_EXPIRED' | 'CREDENTIALS_MISSING' };

export type AssertionCheck = { ok: true; account: Account } | { ok: false; error: string; description: string };

const base64url = (text: string): Buffer => Buffer.from(text, 'base64url');

function parseSegment(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(base64url(segment).toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export class ServiceAccounts {
  private readonly accounts = new Map<string, Account>();
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(
    /** The token URL our key files name (this simulator's). */
    private readonly tokenUrl: () => string,
    private readonly accessTokenTtlSeconds: number,
  ) {}

  /** A new account with a fresh RSA key (made off the event loop); answers its key file. */
  async create(options: { projectId?: string; name?: string } = {}): Promise<ServiceAccountKeyFile> {
    const projectId = options.projectId ?? 'sim-project';
    const name = options.name ?? `sim-${randomBytes(3).toString('hex')}`;
    const email = `${name}@${projectId}.iam.gserviceaccount.com`;
    const { privateKey, publicKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
    this.accounts.set(email, { email, projectId, publicKey });
    return {
      type: 'service_account',
      project_id: projectId,
      private_key_id: randomBytes(20).toString('hex'),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: String(BigInt(`0x${randomBytes(8).toString('hex')}`)),
      auth_uri: 'https://accounts.google.com/o/oauth2/auth',
      token_uri: this.tokenUrl(),
      auth_provider_x509_cert_url: 'https://www.googleapis.com/oauth2/v1/certs',
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(email)}`,
      universe_domain: 'googleapis.com',
    };
  }

  /** Forgets an account: its assertions are refused (a key deleted in the console). */
  remove(email: string): void {
    this.accounts.delete(email);
  }

  /** Checks a JWT-bearer assertion as the token endpoint does (contract §8 steps 1–3). */
  checkAssertion(assertion: string, now = Math.floor(Date.now() / 1000)): AssertionCheck {
    const parts = assertion.split('.');
    const header = parts.length === 3 ? parseSegment(parts[0]) : undefined;
    const claims = parts.length === 3 ? parseSegment(parts[1]) : undefined;
    if (!header || !claims) return { ok: false, error: 'invalid_grant', description: 'Invalid JWT: malformed.' };
    if (header.alg !== 'RS256')
      return { ok: false, error: 'invalid_grant', description: `Invalid JWT: unsupported algorithm ${String(header.alg)}.` };
    const account = typeof claims.iss === 'string' ? this.accounts.get(claims.iss) : undefined;
    if (!account) return { ok: false, error: 'invalid_grant', description: 'Invalid grant: account not found' };
    const verifier = createVerify('RSA-SHA256');
    verifier.update(`${parts[0]}.${parts[1]}`);
    if (!verifier.verify(account.publicKey, base64url(parts[2])))
      return { ok: false, error: 'invalid_grant', description: 'Invalid JWT Signature.' };
    if (claims.aud !== this.tokenUrl() && claims.aud !== VENDOR_TOKEN_URL) {
      return {
        ok: false,
        error: 'invalid_grant',
        description: `Invalid JWT: Failed audience check. The right audience is ${VENDOR_TOKEN_URL}`,
      };
    }
    const iat = Number(claims.iat);
    const exp = Number(claims.exp);
    if (!Number.isFinite(iat) || !Number.isFinite(exp) || exp <= now || iat > now + SKEW_SECONDS || exp - iat > MAX_ASSERTION_SECONDS) {
      return {
        ok: false,
        error: 'invalid_grant',
        description:
          'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.',
      };
    }
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(/\s+/) : [];
    if (!scopes.includes(CLOUD_SCOPE))
      return { ok: false, error: 'invalid_scope', description: 'Invalid OAuth scope or ID token audience provided.' };
    return { ok: true, account };
  }

  /** Mints an access token for a checked account. */
  mint(account: Account, ttlSeconds = this.accessTokenTtlSeconds): { access_token: string; expires_in: number; token_type: 'Bearer' } {
    const token = `ya29.c.sim-${randomBytes(24).toString('base64url')}`;
    this.tokens.set(token, { email: account.email, projectId: account.projectId, expiresAt: Date.now() + ttlSeconds * 1000 });
    return { access_token: token, expires_in: ttlSeconds, token_type: 'Bearer' };
  }

  /** Whether a bearer token is one we minted and still valid. */
  checkToken(token: string | undefined): TokenCheck {
    if (!token) return { ok: false, reason: 'CREDENTIALS_MISSING' };
    const issued = this.tokens.get(token);
    if (!issued) return { ok: false, reason: 'CREDENTIALS_MISSING' };
    if (issued.expiresAt <= Date.now()) return { ok: false, reason: 'ACCESS_TOKEN_EXPIRED' };
    return { ok: true, projectId: issued.projectId, email: issued.email };
  }

  /** How many access tokens were minted (tests check the lane reuses a token). */
  get mintedCount(): number {
    return this.tokens.size;
  }
}
