import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { callUpstream, readJson, UpstreamError } from '../upstream/index.js';

// Device-code sign-in, the client side (contracts/device-code-grant.md).
//
//   const authorization = await requestDeviceCode(grant, { signal });
//   show(authorization.userCode, authorization.verificationUrl);
//   const tokens = await pollDeviceToken(grant, authorization, { signal });
//
// `grant` says where and as whom (endpoints, client id, scope) and which wire
// variant the issuer speaks: RFC_8628 (§2–4: form bodies, `authorization_pending`,
// `slow_down`, `access_denied`, `expired_token`) or CHAT_DEVICE_AUTH (§6: JSON
// bodies, 403/404 while pending, then an authorization code exchanged with PKCE).
// The variants are data; one polling loop reads them.
//
// Outcomes of `pollDeviceToken`: the tokens; a DeviceCodeError (`denied`,
// `expired`, `failed`); the signal's reason when aborted. Every request goes
// through the upstream client (budget, no redirects, the device code masked
// out of anything reported). Nothing here writes a file: the caller saves.

/** How an issuer speaks the flow. */
export interface DeviceCodeVariant {
  readonly id: 'rfc8628' | 'chat-device-auth';
  /** How both requests' bodies are encoded. */
  readonly encoding: 'form' | 'json';
  /** The device authorization request's fields. */
  authorizationBody(grant: DeviceCodeGrant): Record<string, string>;
  /** One token poll's fields. */
  pollBody(grant: DeviceCodeGrant, authorization: DeviceAuthorization): Record<string, string>;
  /** Where the answer holds the device code and the user code (first present wins). */
  readonly deviceCodeFields: readonly string[];
  readonly userCodeFields: readonly string[];
  /** HTTP statuses that mean "not yet" (§6); RFC 8628 says it with an error code instead. */
  readonly pendingStatuses: readonly number[];
  /** What an approved poll answers: tokens, or an authorization code to exchange (PKCE). */
  readonly approval: 'tokens' | 'authorization-code';
  /** Lifetime when the issuer does not say (seconds). */
  readonly defaultExpiresInSeconds: number;
}

/** The URN of the device-code grant (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

export const RFC_8628: DeviceCodeVariant = {
  id: 'rfc8628',
  encoding: 'form',
  authorizationBody: (grant) => ({ client_id: grant.clientId, ...(grant.scope ? { scope: grant.scope } : {}) }),
  pollBody: (grant, authorization) => ({
    grant_type: DEVICE_CODE_GRANT_TYPE,
    device_code: authorization.deviceCode,
    client_id: grant.clientId,
  }),
  deviceCodeFields: ['device_code'],
  userCodeFields: ['user_code'],
  pendingStatuses: [],
  approval: 'tokens',
  // `expires_in` is required by the RFC; 600 s is what the alpha source assumes when it is missing.
  defaultExpiresInSeconds: 600,
};

/** The chat vendor's own device login (§6): not RFC 8628 on the wire. */
export const CHAT_DEVICE_AUTH: DeviceCodeVariant = {
  id: 'chat-device-auth',
  encoding: 'json',
  authorizationBody: (grant) => ({ client_id: grant.clientId }),
  pollBody: (_grant, authorization) => ({ device_auth_id: authorization.deviceCode, user_code: authorization.userCode }),
  deviceCodeFields: ['device_auth_id'],
  userCodeFields: ['user_code', 'usercode'],
  pendingStatuses: [403, 404],
  approval: 'authorization-code',
  // "expires in 15 minutes" (§6); an `expires_in` in the answer, if the issuer sends one, wins.
  defaultExpiresInSeconds: 900,
};

/** Where and as whom to sign in. */
export interface DeviceCodeGrant {
  /** Named in errors (`UpstreamError.lane`). */
  readonly lane: string;
  readonly variant: DeviceCodeVariant;
  readonly clientId: string;
  readonly scope?: string;
  readonly deviceAuthorizationUrl: string;
  readonly tokenUrl: string;
  /** The page the user opens when the answer names none (§6 always: `{issuer}/codex/device`). */
  readonly verificationUrl?: string;
  /** `authorization-code` variants: where the code is exchanged, with which redirect_uri (§6 step 4). */
  readonly codeExchange?: { readonly url: string; readonly redirectUri: string };
  /** Budget of each request (default 15 s). */
  readonly requestTimeoutMs?: number;
}

/** A started sign-in: what to show the user, and what to poll with. */
export interface DeviceAuthorization {
  /** Polls with it; never shown, never logged. */
  readonly deviceCode: string;
  readonly userCode: string;
  /** `verification_uri_complete` when the issuer gives one (the code is in it), else `verification_uri`. */
  readonly verificationUrl: string;
  readonly expiresInSeconds: number;
  /** Epoch ms after which polling stops with `expired`. */
  readonly expiresAt: number;
  /** Seconds between polls, as the issuer asked (default 5). */
  readonly intervalSeconds: number;
}

export interface DeviceTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  readonly idToken?: string;
  readonly expiresInSeconds?: number;
  readonly tokenType?: string;
  readonly scope?: string;
}

/** Why a sign-in ended without tokens: the user declined, the code lapsed, or the issuer failed. */
export type DeviceCodeOutcome = 'denied' | 'expired' | 'failed';

export class DeviceCodeError extends Error {
  constructor(
    readonly outcome: DeviceCodeOutcome,
    message: string,
    /** The issuer's error code, when it sent one (`access_denied`, `invalid_grant`, …). */
    readonly issuerCode?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DeviceCodeError';
  }
}

const DEFAULT_INTERVAL_SECONDS = 5;
/** RFC 8628 §3.5: slow_down adds 5 s to this and every later poll. */
const SLOW_DOWN_STEP_SECONDS = 5;
/** A poll that failed in transit (network, 429, 5xx) is repeated; this many in a row end the sign-in. */
const MAX_TRANSIENT_FAILURES = 3;
/** Backing off after transient failures never waits longer than this between polls. */
const MAX_INTERVAL_SECONDS = 60;
/** Guards a hot loop against an issuer that asks for no wait at all. */
const MIN_INTERVAL_SECONDS = 0.05;
const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;
/** Answers are small; anything bigger is not a token answer. */
const ANSWER_MAX_BYTES = 256 * 1024;

const answerSchema = lazy(() => z.record(z.string(), z.unknown()));

const positiveNumber = (value: unknown): number | undefined => {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
};
const firstString = (record: Record<string, unknown>, fields: readonly string[]): string | undefined => {
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
};

function encode(variant: DeviceCodeVariant, fields: Record<string, string>): { body: string; contentType: string } {
  return variant.encoding === 'form'
    ? { body: new URLSearchParams(fields).toString(), contentType: 'application/x-www-form-urlencoded' }
    : { body: JSON.stringify(fields), contentType: 'application/json' };
}

async function post(
  grant: DeviceCodeGrant,
  url: string,
  fields: Record<string, string>,
  encoding: 'form' | 'json',
  secrets: readonly string[],
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const { body, contentType } = encode({ ...grant.variant, encoding }, fields);
  return callUpstream(
    {
      lane: grant.lane,
      url,
      method: 'POST',
      headers: { 'content-type': contentType, accept: 'application/json' },
      body,
      credentials: secrets,
      timeoutMs: grant.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      signal,
    },
    (response) => readJson(grant.lane, response, answerSchema, ANSWER_MAX_BYTES),
  );
}

/** Step 1: asks the issuer for a device code and the code the user types. */
export async function requestDeviceCode(
  grant: DeviceCodeGrant,
  options: { signal?: AbortSignal; now?: () => number } = {},
): Promise<DeviceAuthorization> {
  const { variant } = grant;
  const answer = await post(grant, grant.deviceAuthorizationUrl, variant.authorizationBody(grant), variant.encoding, [], options.signal);
  const deviceCode = firstString(answer, variant.deviceCodeFields);
  const userCode = firstString(answer, variant.userCodeFields);
  const verificationUrl =
    firstString(answer, ['verification_uri_complete', 'verification_uri', 'verification_url']) ?? grant.verificationUrl;
  if (!deviceCode || !userCode || !verificationUrl) {
    const missing = !deviceCode ? variant.deviceCodeFields[0] : !userCode ? variant.userCodeFields[0] : 'verification_uri';
    throw new UpstreamError(`The sign-in server's device authorization answer has no ${missing}.`, {
      lane: grant.lane,
      failure: 'protocol',
      stage: 'stream',
    });
  }
  const expiresInSeconds = positiveNumber(answer.expires_in) ?? variant.defaultExpiresInSeconds;
  return {
    deviceCode,
    userCode,
    verificationUrl,
    expiresInSeconds,
    expiresAt: (options.now?.() ?? Date.now()) + expiresInSeconds * 1000,
    intervalSeconds: Math.max(MIN_INTERVAL_SECONDS, positiveNumber(answer.interval) ?? DEFAULT_INTERVAL_SECONDS),
  };
}

/** What one poll said. */
type PollResult =
  | { kind: 'pending' }
  | { kind: 'slow_down' }
  | { kind: 'transient'; error: UpstreamError }
  | { kind: 'approved'; answer: Record<string, unknown> };

async function pollOnce(grant: DeviceCodeGrant, authorization: DeviceAuthorization, signal?: AbortSignal): Promise<PollResult> {
  const { variant } = grant;
  try {
    const answer = await post(
      grant,
      grant.tokenUrl,
      variant.pollBody(grant, authorization),
      variant.encoding,
      [authorization.deviceCode],
      signal,
    );
    return { kind: 'approved', answer };
  } catch (error) {
    if (!(error instanceof UpstreamError)) throw error;
    if (
      error.failure === 'network' ||
      error.failure === 'timeout' ||
      (error.failure === 'http' && (error.status === 429 || (error.status ?? 0) >= 500))
    ) {
      return { kind: 'transient', error };
    }
    if (error.failure !== 'http')
      throw new DeviceCodeError('failed', `The sign-in server answered a poll with something unusable: ${error.message}`, undefined, {
        cause: error,
      });
    if (error.status !== undefined && variant.pendingStatuses.includes(error.status)) return { kind: 'pending' };
    switch (error.vendorCode) {
      case 'authorization_pending':
        return { kind: 'pending' };
      case 'slow_down':
        return { kind: 'slow_down' };
      case 'access_denied':
        throw new DeviceCodeError('denied', 'The sign-in was declined.', error.vendorCode, { cause: error });
      case 'expired_token':
        throw new DeviceCodeError('expired', 'The sign-in code expired before it was approved.', error.vendorCode, { cause: error });
      default:
        throw new DeviceCodeError(
          'failed',
          `The sign-in server refused the sign-in (${error.status}${error.vendorCode ? ` ${error.vendorCode}` : ''}${error.vendorMessage ? `: ${error.vendorMessage}` : ''}).`,
          error.vendorCode,
          {
            cause: error,
          },
        );
    }
  }
}

const tokenAnswer = lazy(() =>
  z.looseObject({
    access_token: z.string().min(1),
    refresh_token: z.string().optional(),
    id_token: z.string().optional(),
    expires_in: z.union([z.number(), z.string()]).optional(),
    token_type: z.string().optional(),
    scope: z.string().optional(),
  }),
);
const codeAnswer = lazy(() =>
  z.looseObject({
    authorization_code: z.string().min(1),
    code_verifier: z.string().min(1),
    code_challenge: z.string().optional(),
  }),
);

function tokensOf(answer: Record<string, unknown>): DeviceTokens {
  const parsed = tokenAnswer.safeParse(answer);
  if (!parsed.success) throw new DeviceCodeError('failed', "The sign-in server's token answer holds no access_token.");
  const tokens = parsed.data;
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    idToken: tokens.id_token,
    expiresInSeconds: positiveNumber(tokens.expires_in),
    tokenType: tokens.token_type,
    scope: tokens.scope,
  };
}

/** §6 step 4: the approved poll's authorization code, exchanged like a PKCE browser login. */
async function exchangeCode(grant: DeviceCodeGrant, answer: Record<string, unknown>, signal?: AbortSignal): Promise<DeviceTokens> {
  const parsed = codeAnswer.safeParse(answer);
  if (!parsed.success) throw new DeviceCodeError('failed', "The sign-in server's approval holds no authorization_code and code_verifier.");
  if (!grant.codeExchange) throw new Error(`The ${grant.variant.id} variant needs grant.codeExchange.`);
  const { authorization_code: code, code_verifier: verifier } = parsed.data;
  const fields = {
    grant_type: 'authorization_code',
    code,
    redirect_uri: grant.codeExchange.redirectUri,
    client_id: grant.clientId,
    code_verifier: verifier,
  };
  try {
    return tokensOf(await post(grant, grant.codeExchange.url, fields, 'form', [code, verifier], signal));
  } catch (error) {
    if (error instanceof UpstreamError && error.failure === 'http') {
      throw new DeviceCodeError(
        'failed',
        `The sign-in server refused the code exchange (${error.status}${error.vendorCode ? ` ${error.vendorCode}` : ''}).`,
        error.vendorCode,
        { cause: error },
      );
    }
    throw error;
  }
}

export interface PollOptions {
  readonly signal?: AbortSignal;
  /** Told before each poll (the wait it honoured), for progress displays. */
  readonly onPoll?: (poll: { readonly attempt: number; readonly intervalSeconds: number }) => void;
  readonly now?: () => number;
}

/**
 * Steps 3–4: polls until the user approves (answers the tokens), declines
 * (`denied`), or the code lapses (`expired`: the issuer said so, or its
 * lifetime passed here). Never polls faster than the issuer's interval; a
 * `slow_down` adds 5 s for good; transient failures back off and are repeated
 * (three in a row fail the sign-in). An abort ends it with the signal's reason.
 */
export async function pollDeviceToken(
  grant: DeviceCodeGrant,
  authorization: DeviceAuthorization,
  options: PollOptions = {},
): Promise<DeviceTokens> {
  const now = options.now ?? Date.now;
  let interval = authorization.intervalSeconds;
  let transientFailures = 0;
  for (let attempt = 1; ; attempt += 1) {
    const remainingMs = authorization.expiresAt - now();
    if (remainingMs <= 0) throw new DeviceCodeError('expired', 'The sign-in code expired before it was approved.');
    // The last wait is cut at the code's lifetime: past it, the answer is known without asking.
    await sleep(Math.min(interval * 1000, remainingMs), undefined, options.signal ? { signal: options.signal } : undefined).catch(
      (error: unknown) => {
        throw options.signal?.aborted ? (options.signal.reason ?? error) : error;
      },
    );
    if (authorization.expiresAt - now() <= 0) throw new DeviceCodeError('expired', 'The sign-in code expired before it was approved.');
    options.onPoll?.({ attempt, intervalSeconds: interval });
    const result = await pollOnce(grant, authorization, options.signal);
    switch (result.kind) {
      case 'pending':
        transientFailures = 0;
        break;
      case 'slow_down':
        transientFailures = 0;
        interval += SLOW_DOWN_STEP_SECONDS;
        break;
      case 'transient':
        transientFailures += 1;
        if (transientFailures >= MAX_TRANSIENT_FAILURES) {
          throw new DeviceCodeError(
            'failed',
            `The sign-in server failed ${MAX_TRANSIENT_FAILURES} polls in a row (${result.error.message}).`,
            result.error.vendorCode,
            { cause: result.error },
          );
        }
        // "On network timeouts back off exponentially" (§4); Retry-After, when given, is a floor.
        interval = Math.min(MAX_INTERVAL_SECONDS, Math.max(interval * 2, result.error.retryAfterSeconds ?? 0));
        break;
      case 'approved':
        return grant.variant.approval === 'tokens' ? tokensOf(result.answer) : exchangeCode(grant, result.answer, options.signal);
    }
  }
}

/** A sign-in failure as the API answers it: the starting request's upstream failure, in our codes. */
export function deviceCodeStartError(error: unknown, what: string): unknown {
  if (!(error instanceof UpstreamError)) return error;
  if (error.failure === 'network')
    return error.as('NETWORK_FAILED', `${what}: the sign-in server is unreachable (${error.reason ?? error.message}).`);
  if (error.failure === 'timeout') return error.as('UPSTREAM_TIMEOUT', `${what}: the sign-in server did not answer in time.`);
  if (error.failure === 'http' && error.status === 404)
    return error.as(
      'UPSTREAM_FAILED',
      `${what}: the sign-in server has no device login (404): it may be turned off for this account or issuer.`,
    );
  return error.as('UPSTREAM_FAILED', `${what}: ${error.message}`);
}
