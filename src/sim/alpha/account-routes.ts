import { DEVICE_CODE_GRANT_TYPE, mountDeviceCodeIssuer, type DeviceCodeIssuer } from '../device-code.js';
import { answer, authenticate, isRefusal } from './access.js';
import { SIM_ALL_MODELS } from './catalog.js';
import type { AlphaState } from './state.js';
import { ALPHA_CLIENT_ID, type AlphaAccount } from './tokens.js';

// The account side of the alpha vendor: the model list the status probe reads
// (`GET /v1/models`, also the light authenticated call that checks a key), and
// the OIDC issuer the `alpha` lane's session comes from (contract
// quota-and-status-probes §3): discovery, the RFC 8628 device authorization
// (the shared device-code issuer), and one token endpoint for both the
// device-code poll and the refresh grant.

export const ISSUER_PATHS = {
  discovery: '/.well-known/openid-configuration',
  deviceAuthorization: '/oauth2/device/code',
  token: '/oauth2/token',
  verification: '/device',
} as const;

export interface DeviceLoginOptions {
  /** Approve each device code this long after issuing it (the demo). */
  readonly autoApproveAfterMs?: number;
  /** Seconds between polls the issuer asks for (tests use fractions). */
  readonly intervalSeconds?: number;
}

export function registerAccountRoutes(state: AlphaState, login: DeviceLoginOptions): DeviceCodeIssuer<AlphaAccount> {
  const { simulator, tokens } = state;

  simulator.route('GET', '/v1/models', (request, response) => {
    const caller = authenticate(state, request, 'object');
    if (isRefusal(caller)) return answer(response, caller);
    const created = 1_767_225_600;
    return response.json(200, { object: 'list', data: SIM_ALL_MODELS.map((id) => ({ id, object: 'model', created, owned_by: 'alpha' })) });
  });

  simulator.route('GET', ISSUER_PATHS.discovery, (_request, response) => {
    const issuer = simulator.url;
    return response.json(200, {
      issuer,
      authorization_endpoint: `${issuer}/oauth2/auth`,
      device_authorization_endpoint: `${issuer}${ISSUER_PATHS.deviceAuthorization}`,
      token_endpoint: `${issuer}${ISSUER_PATHS.token}`,
      grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE],
      scopes_supported: ['openid', 'profile', 'email', 'offline_access', 'alpha-cli:access', 'api:access'],
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['none'],
    });
  });

  const devices = mountDeviceCodeIssuer<AlphaAccount>(simulator, {
    variant: 'rfc8628',
    paths: { authorization: ISSUER_PATHS.deviceAuthorization, verification: ISSUER_PATHS.verification },
    clientId: ALPHA_CLIENT_ID,
    issueTokens: (account) => ({ ...tokens.mint(account ?? tokens.account) }),
    autoApproveAfterMs: login.autoApproveAfterMs,
    intervalSeconds: login.intervalSeconds,
    controlPrefix: '/__sim/alpha/device-codes',
  });

  // One token endpoint (RFC 6749 §5 error bodies): the device-code poll, and the refresh grant with rotation.
  simulator.route('POST', ISSUER_PATHS.token, async (request, response) => {
    const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
    if (body.grant_type === DEVICE_CODE_GRANT_TYPE) return devices.answerTokenPoll(request, response);
    if (body.grant_type !== 'refresh_token')
      return response.json(400, {
        error: 'unsupported_grant_type',
        error_description: `Unsupported grant_type: ${String(body.grant_type ?? '')}`,
      });
    if (body.client_id !== ALPHA_CLIENT_ID)
      return response.json(401, { error: 'invalid_client', error_description: 'Client authentication failed (unknown client).' });
    if (typeof body.refresh_token !== 'string' || !body.refresh_token)
      return response.json(400, { error: 'invalid_request', error_description: 'Missing required parameter: refresh_token' });
    const refreshed = tokens.refresh(body.refresh_token);
    if ('error' in refreshed) return response.json(400, { error: refreshed.error, error_description: refreshed.description });
    return response.json(200, refreshed, { 'cache-control': 'no-store' });
  });

  return devices;
}
