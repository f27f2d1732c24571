import { writeJsonFile } from '../../../common/json-file.js';
import { CHAT_DEVICE_AUTH, pollDeviceToken, requestDeviceCode, type DeviceCodeGrant, type DeviceTokens } from '../../auth/device-code.js';
import type { LaneEnv } from '../env.js';
import type { AccountLogin } from '../types.js';
import { accountIdClaim, jwtClaims } from './jwt.js';
import { CHAT_CLIENT_ID } from './refresh.js';

// Signing the `oauth` lane into a chat account with the chat vendor's own
// device login (device-code-grant.md §6): a user code shown at
// `{issuer}/codex/device`, polls until approved, then the authorization code
// exchanged with its PKCE verifier. Only then is the session file replaced —
// whole, atomically, mode 0600, in the chat CLI's layout — so the lane's next
// call runs as the new account.

export function chatLoginGrant(ctx: LaneEnv): DeviceCodeGrant {
  const issuer = ctx.upstreamUrl('oauth', 'issuer');
  return {
    lane: 'oauth',
    variant: CHAT_DEVICE_AUTH,
    clientId: CHAT_CLIENT_ID,
    deviceAuthorizationUrl: `${issuer}/api/accounts/deviceauth/usercode`,
    tokenUrl: `${issuer}/api/accounts/deviceauth/token`,
    verificationUrl: `${issuer}/codex/device`,
    codeExchange: { url: `${issuer}/oauth/token`, redirectUri: `${issuer}/deviceauth/callback` },
  };
}

/** The session file of a new sign-in, as the chat CLI writes it (contract §2). */
export function writeChatSession(file: string, tokens: DeviceTokens, now = new Date()): { email?: string } {
  const accountId = accountIdClaim(tokens.idToken, tokens.accessToken) ?? null;
  writeJsonFile(
    file,
    {
      auth_mode: 'chatgpt',
      OPENAI_API_KEY: null,
      tokens: {
        id_token: tokens.idToken ?? null,
        access_token: tokens.accessToken,
        refresh_token: tokens.refreshToken ?? null,
        account_id: accountId,
      },
      last_refresh: now.toISOString(),
    },
    { private: true },
  );
  const email = jwtClaims(tokens.idToken)?.email;
  return typeof email === 'string' ? { email } : {};
}

export async function startChatLogin(ctx: LaneEnv, options: { signal?: AbortSignal } = {}): Promise<AccountLogin> {
  const grant = chatLoginGrant(ctx);
  const authorization = await requestDeviceCode(grant, { signal: options.signal });
  const completion = pollDeviceToken(grant, authorization, { signal: options.signal }).then((tokens) =>
    writeChatSession(ctx.sessionFile('oauth'), tokens),
  );
  // The code is shown first and the end awaited later: never an unhandled rejection meanwhile.
  completion.catch(() => undefined);
  const { userCode, verificationUrl, expiresInSeconds, intervalSeconds } = authorization;
  return { authorization: { userCode, verificationUrl, expiresInSeconds, intervalSeconds }, completion };
}
