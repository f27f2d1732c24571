import { mountDeviceCodeIssuer, type DeviceCodeIssuer } from '../device-code.js';
import { CLI_CLIENT_ID, type SimAccount } from './oauth-tokens.js';
import type { ResponsesState } from './state.js';

// The issuer's own device login (device-code-grant.md §6), for the `oauth`
// lane's account switching: a user code, 403 while pending, then an
// authorization code with its PKCE verifier, exchanged at `/oauth/token`
// like a browser login. Approving with an account (`subject`, any part of a
// SimAccount) signs that account in; without one, the simulator's own.

export const DEVICE_LOGIN_PATHS = {
  userCode: '/api/accounts/deviceauth/usercode',
  token: '/api/accounts/deviceauth/token',
  verification: '/codex/device',
} as const;

export interface DeviceLoginOptions {
  /** Approve each code this long after issuing it (the demo). */
  readonly autoApproveAfterMs?: number;
  /** Seconds between polls (the vendor: 5; tests use fractions). */
  readonly intervalSeconds?: number;
  /** A code's lifetime (the vendor: 15 minutes). */
  readonly expiresInSeconds?: number;
}

export function registerDeviceLogin(state: ResponsesState, options: DeviceLoginOptions): DeviceCodeIssuer<Partial<SimAccount>> {
  return mountDeviceCodeIssuer<Partial<SimAccount>>(state.simulator, {
    variant: 'chat-device-auth',
    paths: { authorization: DEVICE_LOGIN_PATHS.userCode, token: DEVICE_LOGIN_PATHS.token, verification: DEVICE_LOGIN_PATHS.verification },
    clientId: CLI_CLIENT_ID,
    ...options,
    issueAuthorizationCode: (challenge, subject) => state.tokens.issueAuthorizationCode({ ...state.tokens.account, ...subject }, challenge),
  });
}
