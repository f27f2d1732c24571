import { pollDeviceToken, requestDeviceCode, RFC_8628, type DeviceAuthorization, type DeviceCodeGrant } from '../../auth/device-code.js';
import type { LaneEnv } from '../env.js';
import { ALPHA_CLIENT_ID, ALPHA_SCOPE, discoverAlphaIssuer } from './issuer.js';
import { saveAlphaSession, type AlphaSession } from './session-file.js';
import { noteAlphaSessionChanged } from './status.js';

// `svc alpha login` (contract quota-and-status-probes §3.1): the issuer's
// discovery, an RFC 8628 device authorization (the shared device-code
// client), then polling until the user approves; only then is the session
// file written. Used in-process by the CLI and by the studio's account switch.

export interface AlphaLogin {
  /** What the user sees: the code and the page (with the code in it when the issuer gives one). */
  readonly authorization: Pick<DeviceAuthorization, 'userCode' | 'verificationUrl' | 'expiresInSeconds' | 'intervalSeconds'>;
  /** The saved session once approved; rejects with a DeviceCodeError (denied, expired, failed) or the signal's reason. */
  readonly completion: Promise<AlphaSession>;
}

export interface AlphaLoginTarget {
  readonly issuerUrl: string;
  /** Where the session goes. */
  readonly file: string;
}

export async function startAlphaLogin(
  target: AlphaLoginTarget,
  options: { signal?: AbortSignal; onSaved?: (session: AlphaSession) => void } = {},
): Promise<AlphaLogin> {
  const endpoints = await discoverAlphaIssuer(target.issuerUrl, options.signal);
  const grant: DeviceCodeGrant = {
    lane: 'alpha',
    variant: RFC_8628,
    clientId: ALPHA_CLIENT_ID,
    scope: ALPHA_SCOPE,
    deviceAuthorizationUrl: endpoints.deviceAuthorizationUrl,
    tokenUrl: endpoints.tokenUrl,
  };
  const authorization = await requestDeviceCode(grant, { signal: options.signal });
  const completion = pollDeviceToken(grant, authorization, { signal: options.signal }).then((tokens) => {
    const session = saveAlphaSession(target.file, tokens, { tokenEndpoint: endpoints.tokenUrl });
    options.onSaved?.(session);
    return session;
  });
  // The caller may show the code first and await later: never an unhandled rejection meanwhile.
  completion.catch(() => undefined);
  const { userCode, verificationUrl, expiresInSeconds, intervalSeconds } = authorization;
  return { authorization: { userCode, verificationUrl, expiresInSeconds, intervalSeconds }, completion };
}

/** A login through the studio (its account switch): its issuer and session file; server.json follows. */
export function startStudioAlphaLogin(ctx: LaneEnv, options: { signal?: AbortSignal } = {}): Promise<AlphaLogin> {
  return startAlphaLogin(
    { issuerUrl: ctx.upstreamUrl('alpha', 'issuer'), file: ctx.sessionFile('alpha') },
    { signal: options.signal, onSaved: () => noteAlphaSessionChanged(ctx) },
  );
}
