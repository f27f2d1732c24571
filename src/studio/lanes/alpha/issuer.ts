import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import { callUpstream, readJson } from '../../upstream/index.js';

// The alpha OIDC issuer (contract quota-and-status-probes §3.1): its discovery
// document names the device authorization and token endpoints. An endpoint is
// used only when it is https on one of the vendor's auth hosts, or on the
// configured issuer's own origin (a simulator, a proxy), and carries no
// userinfo: a tampered document or session file cannot send a refresh token
// elsewhere.

/** The public client id of the vendor's CLI (the simulator knows it by this neutral name). */
export const ALPHA_CLIENT_ID = 'alpha-cli';
export const ALPHA_SCOPE = 'openid profile email offline_access alpha-cli:access api:access';
/** The vendor's two auth hosts. */
const AUTH_HOSTS = ['auth.x.ai', 'accounts.x.ai'];
const DISCOVERY_TIMEOUT_MS = 15_000;

/** Whether `url` may receive the session's tokens. */
export function isTrustedAuthEndpoint(url: string, issuerUrl: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  if (parsed.origin === new URL(issuerUrl).origin) return true;
  return parsed.protocol === 'https:' && AUTH_HOSTS.includes(parsed.hostname);
}

const discoverySchema = lazy(() => z.looseObject({ device_authorization_endpoint: z.string().min(1), token_endpoint: z.string().min(1) }));

export interface AlphaIssuerEndpoints {
  readonly deviceAuthorizationUrl: string;
  readonly tokenUrl: string;
}

/** The endpoints of `{issuer}/.well-known/openid-configuration`, checked. */
export async function discoverAlphaIssuer(issuerUrl: string, signal?: AbortSignal): Promise<AlphaIssuerEndpoints> {
  const document = await callUpstream(
    { lane: 'alpha', url: `${issuerUrl}/.well-known/openid-configuration`, timeoutMs: DISCOVERY_TIMEOUT_MS, signal },
    (response) => readJson('alpha', response, discoverySchema, 256 * 1024),
  );
  for (const url of [document.device_authorization_endpoint, document.token_endpoint]) {
    if (!isTrustedAuthEndpoint(url, issuerUrl)) {
      throw new ServiceError(
        'UPSTREAM_FAILED',
        `The alpha issuer names an endpoint the studio does not use (${url.slice(0, 120)}): only https on the vendor's auth hosts, or the issuer's own origin.`,
        { details: { lane: 'alpha', endpoint: url.slice(0, 200) } },
      );
    }
  }
  return { deviceAuthorizationUrl: document.device_authorization_endpoint, tokenUrl: document.token_endpoint };
}
