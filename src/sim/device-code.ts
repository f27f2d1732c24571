import { createHash, randomBytes } from 'node:crypto';
import type { ErrorAnswer, SimRequest, SimResponse, Simulator } from './harness.js';

// A device authorization server to mount on a harness simulator
// (contracts/device-code-grant.md), in either wire variant:
//
//   const issuer = mountDeviceCodeIssuer(simulator, {
//     variant: 'rfc8628',                       // §2–4; or 'chat-device-auth' (§6)
//     paths: { authorization: '/oauth/device/code', token: '/oauth/token', verification: '/device' },
//     issueTokens: (subject) => ({ access_token: '…', token_type: 'Bearer', … }),
//     // 'chat-device-auth' instead: issueAuthorizationCode: (codeChallenge, subject) => code
//     autoApproveAfterMs: 3000,                 // demo: approved a few seconds after issuing
//   });
//   issuer.approve(userCode, subject?) · issuer.deny(userCode) · issuer.expire(userCode) · issuer.slowDown(userCode)
//
// What a test (or the demo) gets:
// - the verification page: `GET {verification}?user_code=…` shows a form, `POST {verification}`
//   (`user_code`, `decision=approve|deny`) decides, as a person would in a browser;
// - control routes (never logged or faulted), body `{ userCode, subject? }`:
//   `POST /__sim/device-codes/approve|deny|expire|slow-down`, and `GET /__sim/device-codes`
//   listing the codes with their state (never the device codes);
// - per code: pending until decided; `slow_down` to a poll earlier than the interval (RFC 8628
//   §3.5: the interval then grows by 5 s) or once after `slowDown()`; `expired_token` past the
//   lifetime; `access_denied`; the grant once (a second poll is `invalid_grant`).
//
// RFC 8628 issuers usually answer refresh grants on the same token endpoint: leave
// `paths.token` out and call `issuer.answerTokenPoll(request, response)` from the host's own
// token route when `grant_type` is DEVICE_CODE_GRANT_TYPE.
//
// The §6 variant answers JSON, says "pending" with 403, and on approval hands out an
// authorization code with its PKCE verifier (the host's `/oauth/token` exchanges it). Its
// contract names no expiry answer: a lapsed or unknown code is 404, which clients read as
// pending until their own 15 minutes pass. A lifetime other than the vendor's 15 minutes is
// announced as `expires_in` (inferred), so a client can honour it.

export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

/** RFC 8628 §6.1: base-20 consonants, shown as XXXX-XXXX. */
const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const SLOW_DOWN_STEP_MS = 5000;
/** Timers are not exact: a poll this much early still counts as on time. */
const EARLY_TOLERANCE_MS = 25;
const CHAT_LIFETIME_SECONDS = 900;
/** Records are forgotten this long after their code lapsed. */
const FORGET_AFTER_MS = 60_000;

export type DeviceCodeState = 'pending' | 'approved' | 'denied' | 'expired' | 'granted';

interface CommonOptions {
  readonly paths: { readonly authorization: string; readonly token?: string; readonly verification: string };
  /** The client id the issuer knows; absent: any. */
  readonly clientId?: string;
  /** Lifetime of a code (default: 600 s for RFC 8628, the vendor's 900 s for §6). */
  readonly expiresInSeconds?: number;
  /** Seconds between polls the issuer asks for (default 5; tests use fractions). */
  readonly intervalSeconds?: number;
  /** Approve each code this long after issuing it (the demo), with the default subject. */
  readonly autoApproveAfterMs?: number;
  /** Where the control routes live (default `/__sim/device-codes`). */
  readonly controlPrefix?: string;
}

export type DeviceCodeIssuerOptions<Subject> = CommonOptions &
  (
    | { readonly variant: 'rfc8628'; readonly issueTokens: (subject: Subject | undefined) => Record<string, unknown> }
    | {
        readonly variant: 'chat-device-auth';
        readonly issueAuthorizationCode: (codeChallenge: string, subject: Subject | undefined) => string;
      }
  );

export interface DeviceCodeRecord {
  readonly userCode: string;
  readonly clientId: string | undefined;
  readonly issuedAt: string;
  readonly expiresAt: string;
  readonly state: DeviceCodeState;
  readonly polls: number;
  readonly slowDowns: number;
}

export interface DeviceCodeIssuer<Subject> {
  /** The page a person opens (`verification_uri`). */
  readonly verificationUrl: string;
  /** Decides a pending code; answers false when the code is unknown or no longer pending. */
  approve(userCode: string, subject?: Subject): boolean;
  deny(userCode: string): boolean;
  /** Makes a code lapse now. */
  expire(userCode: string): boolean;
  /** The next poll of this code answers `slow_down`. */
  slowDown(userCode: string): boolean;
  /** Every code issued and not yet forgotten, newest last. */
  codes(): readonly DeviceCodeRecord[];
  /** RFC 8628: answers a device-code poll on the host's own token route. */
  answerTokenPoll(request: SimRequest, response: SimResponse): Promise<void>;
}

interface Code<Subject> {
  readonly deviceCode: string;
  readonly userCode: string;
  readonly clientId: string | undefined;
  readonly issuedAt: number;
  expiresAt: number;
  intervalMs: number;
  state: DeviceCodeState;
  subject: Subject | undefined;
  lastPollAt: number | undefined;
  slowDownNext: boolean;
  polls: number;
  slowDowns: number;
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** Case and dashes do not matter when a person types the code (RFC 8628 §6.1). */
export const normalizeUserCode = (code: string): string => code.toUpperCase().replace(/[^A-Z0-9]/g, '');

function newUserCode(): string {
  const bytes = randomBytes(8);
  const chars = [...bytes].map((byte) => USER_CODE_ALPHABET[byte % USER_CODE_ALPHABET.length]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}

const oauthError = (error: string, description: string, status = 400): ErrorAnswer => ({
  status,
  body: { error, error_description: description },
});

const escapeHtml = (value: string): string => value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body style="font-family:sans-serif;max-width:32rem;margin:3rem auto">${body}</body></html>`;
}

export function mountDeviceCodeIssuer<Subject = unknown>(
  simulator: Simulator,
  options: DeviceCodeIssuerOptions<Subject>,
): DeviceCodeIssuer<Subject> {
  const chat = options.variant === 'chat-device-auth';
  const lifetimeSeconds = options.expiresInSeconds ?? (chat ? CHAT_LIFETIME_SECONDS : 600);
  const intervalSeconds = options.intervalSeconds ?? 5;
  const byDeviceCode = new Map<string, Code<Subject>>();
  const byUserCode = new Map<string, Code<Subject>>();
  const controlPrefix = options.controlPrefix ?? '/__sim/device-codes';

  const lapsed = (code: Code<Subject>, now = Date.now()) => code.state === 'expired' || (code.state !== 'granted' && now >= code.expiresAt);
  const forgetOld = (now = Date.now()) => {
    for (const code of byDeviceCode.values()) {
      if (now - code.expiresAt > FORGET_AFTER_MS) {
        byDeviceCode.delete(code.deviceCode);
        byUserCode.delete(normalizeUserCode(code.userCode));
      }
    }
  };
  const find = (userCode: string): Code<Subject> | undefined => byUserCode.get(normalizeUserCode(userCode));
  const decide = (userCode: string, change: (code: Code<Subject>) => void): boolean => {
    const code = find(userCode);
    if (!code || code.state !== 'pending' || lapsed(code)) return false;
    change(code);
    return true;
  };

  const issuer: DeviceCodeIssuer<Subject> = {
    get verificationUrl() {
      return `${simulator.url}${options.paths.verification}`;
    },
    approve: (userCode, subject) =>
      decide(userCode, (code) => {
        code.state = 'approved';
        code.subject = subject;
      }),
    deny: (userCode) => decide(userCode, (code) => (code.state = 'denied')),
    expire: (userCode) => decide(userCode, (code) => (code.state = 'expired')),
    slowDown: (userCode) => decide(userCode, (code) => (code.slowDownNext = true)),
    codes: () =>
      [...byDeviceCode.values()].map((code) => ({
        userCode: code.userCode,
        clientId: code.clientId,
        issuedAt: new Date(code.issuedAt).toISOString(),
        expiresAt: new Date(code.expiresAt).toISOString(),
        state: lapsed(code) ? 'expired' : code.state,
        polls: code.polls,
        slowDowns: code.slowDowns,
      })),
    answerTokenPoll: (request, response) => answerPoll(request, response),
  };

  function issue(clientId: string | undefined): Code<Subject> {
    forgetOld();
    const now = Date.now();
    const code: Code<Subject> = {
      deviceCode: `${chat ? 'deviceauth' : 'dc'}_${randomBytes(24).toString('base64url')}`,
      userCode: newUserCode(),
      clientId,
      issuedAt: now,
      expiresAt: now + lifetimeSeconds * 1000,
      intervalMs: intervalSeconds * 1000,
      state: 'pending',
      subject: undefined,
      lastPollAt: undefined,
      slowDownNext: false,
      polls: 0,
      slowDowns: 0,
    };
    byDeviceCode.set(code.deviceCode, code);
    byUserCode.set(normalizeUserCode(code.userCode), code);
    if (options.autoApproveAfterMs !== undefined) setTimeout(() => issuer.approve(code.userCode), options.autoApproveAfterMs).unref();
    return code;
  }

  /** The client id check of both requests; an answer when it fails. */
  function checkClient(clientId: string | undefined): ErrorAnswer | undefined {
    if (!clientId)
      return chat
        ? { status: 400, body: { error: { code: 'invalid_request', message: 'client_id is required.' } } }
        : oauthError('invalid_request', 'Missing required parameter: client_id');
    if (options.clientId !== undefined && clientId !== options.clientId) {
      return chat
        ? { status: 400, body: { error: { code: 'invalid_client', message: 'Unknown client_id.' } } }
        : oauthError('invalid_client', 'Client authentication failed (unknown client).', 401);
    }
    return undefined;
  }

  simulator.route('POST', options.paths.authorization, async (request, response) => {
    const body = asRecord(request.body);
    const clientId = text(body.client_id);
    const refused = checkClient(clientId);
    if (refused) return response.json(refused.status, refused.body);
    const code = issue(clientId);
    if (chat) {
      // §6: the interval is a string of seconds; the page is not in the answer.
      return response.json(200, {
        device_auth_id: code.deviceCode,
        user_code: code.userCode,
        interval: String(intervalSeconds),
        ...(lifetimeSeconds !== CHAT_LIFETIME_SECONDS ? { expires_in: lifetimeSeconds } : {}),
      });
    }
    return response.json(200, {
      device_code: code.deviceCode,
      user_code: code.userCode,
      verification_uri: issuer.verificationUrl,
      verification_uri_complete: `${issuer.verificationUrl}?user_code=${encodeURIComponent(code.userCode)}`,
      expires_in: lifetimeSeconds,
      interval: intervalSeconds,
    });
  });

  /** One poll; the code's state decides, after the interval is enforced. */
  async function answerPoll(request: SimRequest, response: SimResponse): Promise<void> {
    const body = asRecord(request.body);
    const now = Date.now();
    if (chat) {
      const code = byDeviceCode.get(text(body.device_auth_id) ?? '');
      if (!code || code.userCode !== text(body.user_code) || lapsed(code, now))
        return response.json(404, { error: { code: 'deviceauth_not_found', message: 'Device authorization not found.' } });
      code.polls += 1;
      if (code.state === 'denied')
        return response.json(400, { error: { code: 'access_denied', message: 'The user declined the device authorization.' } });
      if (code.state !== 'approved')
        return response.json(403, { error: { code: 'deviceauth_pending', message: 'The device authorization is pending.' } });
      code.state = 'granted';
      return response.json(200, approvedAnswer(code));
    }
    if (text(body.grant_type) !== DEVICE_CODE_GRANT_TYPE) {
      const answer = oauthError('unsupported_grant_type', `Unsupported grant_type: ${String(body.grant_type ?? '')}`);
      return response.json(answer.status, answer.body);
    }
    const code = byDeviceCode.get(text(body.device_code) ?? '');
    const refused =
      checkClient(text(body.client_id)) ??
      (!code || code.state === 'granted' ? oauthError('invalid_grant', 'The device code is invalid or was already used.') : undefined);
    if (refused || !code) return response.json(refused?.status ?? 400, refused?.body);
    const early = code.lastPollAt !== undefined && now - code.lastPollAt < code.intervalMs - EARLY_TOLERANCE_MS;
    code.lastPollAt = now;
    code.polls += 1;
    let answer: ErrorAnswer | undefined;
    if (lapsed(code, now)) answer = oauthError('expired_token', 'The device code has expired.');
    else if (early || code.slowDownNext) {
      code.slowDownNext = false;
      code.slowDowns += 1;
      code.intervalMs += SLOW_DOWN_STEP_MS;
      answer = oauthError('slow_down', 'Polling too fast: wait longer between requests.');
    } else if (code.state === 'denied') answer = oauthError('access_denied', 'The user declined the authorization request.');
    else if (code.state === 'pending') answer = oauthError('authorization_pending', 'The authorization request is still pending.');
    if (answer) return response.json(answer.status, answer.body);
    code.state = 'granted';
    return response.json(200, approvedAnswer(code), { 'cache-control': 'no-store' });
  }

  /** An approved code's one answer: tokens (RFC 8628), or an authorization code with its PKCE verifier (§6). */
  function approvedAnswer(code: Code<Subject>): Record<string, unknown> {
    if (options.variant === 'rfc8628') return options.issueTokens(code.subject);
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    return {
      authorization_code: options.issueAuthorizationCode(challenge, code.subject),
      code_challenge: challenge,
      code_verifier: verifier,
    };
  }
  if (options.paths.token) simulator.route('POST', options.paths.token, answerPoll);

  // The verification page: what a person sees after opening the link.
  simulator.route('GET', options.paths.verification, async (request, response) => {
    const userCode = request.query.get('user_code') ?? '';
    const form = `<h1>Sign in a device</h1><form method="post"><label>Code <input name="user_code" value="${escapeHtml(userCode)}" autocomplete="off"></label>
<p><button name="decision" value="approve">Approve</button> <button name="decision" value="deny">Deny</button></p></form>`;
    return response.send(200, page('Sign in a device', form), 'text/html; charset=utf-8');
  });
  simulator.route('POST', options.paths.verification, async (request, response) => {
    const body = asRecord(request.body);
    const userCode = text(body.user_code) ?? '';
    const approve = text(body.decision) !== 'deny';
    const done = approve ? issuer.approve(userCode) : issuer.deny(userCode);
    const message = done
      ? approve
        ? 'Approved: the device is signed in. You can close this page.'
        : 'Denied: the device was not signed in.'
      : 'That code is unknown, expired or already used.';
    return response.send(done ? 200 : 400, page('Sign in a device', `<p>${escapeHtml(message)}</p>`), 'text/html; charset=utf-8');
  });

  // Control routes: tests decide a code without a page.
  const control = (action: (userCode: string, subject: Subject | undefined) => boolean) => (request: { body: unknown }) => {
    const body = asRecord(request.body);
    const userCode = text(body.userCode);
    if (!userCode) return { status: 400, body: { error: { code: 'invalid_request', message: 'userCode is required.' } } };
    const done = action(userCode, body.subject as Subject | undefined);
    return done
      ? { status: 200, body: { userCode, ok: true } }
      : { status: 409, body: { error: { code: 'not_pending', message: `No pending code ${userCode}.` } } };
  };
  simulator.control(
    'POST',
    `${controlPrefix}/approve`,
    control((userCode, subject) => issuer.approve(userCode, subject)),
  );
  simulator.control(
    'POST',
    `${controlPrefix}/deny`,
    control((userCode) => issuer.deny(userCode)),
  );
  simulator.control(
    'POST',
    `${controlPrefix}/expire`,
    control((userCode) => issuer.expire(userCode)),
  );
  simulator.control(
    'POST',
    `${controlPrefix}/slow-down`,
    control((userCode) => issuer.slowDown(userCode)),
  );
  simulator.control('GET', controlPrefix, () => ({ status: 200, body: { codes: issuer.codes() } }));
  return issuer;
}
