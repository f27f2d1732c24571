import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountDeviceCodeIssuer, type DeviceCodeIssuer } from '../../src/sim/device-code.js';
import { createSimulator, type Simulator } from '../../src/sim/harness.js';
import {
  CHAT_DEVICE_AUTH,
  DeviceCodeError,
  pollDeviceToken,
  requestDeviceCode,
  RFC_8628,
  type DeviceCodeGrant,
} from '../../src/studio/auth/device-code.js';

// The device-code client (src/studio/auth/device-code.ts) against the simulator piece
// (src/sim/device-code.ts) over real HTTP, in both wire variants: RFC 8628 and the chat
// vendor's own device login (device-code-grant.md §6).

const CLIENT_ID = 'studio-test-client';
/** Fractions of a second keep the polls quick; the issuer enforces whatever it announced. */
const INTERVAL_SECONDS = 0.1;

interface Subject {
  readonly name: string;
}

let simulator: Simulator;
let rfc: DeviceCodeIssuer<Subject>;
let chat: DeviceCodeIssuer<Subject>;
let shortLived: DeviceCodeIssuer<Subject>;
const exchangeCodes = new Map<string, { challenge: string; subject?: Subject }>();

beforeAll(async () => {
  simulator = createSimulator({ name: 'device-code-test' });
  rfc = mountDeviceCodeIssuer<Subject>(simulator, {
    variant: 'rfc8628',
    paths: { authorization: '/oauth/device/code', token: '/oauth/device/token', verification: '/device' },
    clientId: CLIENT_ID,
    intervalSeconds: INTERVAL_SECONDS,
    issueTokens: (subject) => ({
      access_token: `at-${subject?.name ?? 'default'}`,
      refresh_token: 'rt-1',
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid',
    }),
  });
  chat = mountDeviceCodeIssuer<Subject>(simulator, {
    variant: 'chat-device-auth',
    paths: { authorization: '/api/accounts/deviceauth/usercode', token: '/api/accounts/deviceauth/token', verification: '/codex/device' },
    clientId: CLIENT_ID,
    intervalSeconds: INTERVAL_SECONDS,
    controlPrefix: '/__sim/chat-device-codes',
    issueAuthorizationCode: (challenge, subject) => {
      const code = `ac-${exchangeCodes.size + 1}`;
      exchangeCodes.set(code, { challenge, subject });
      return code;
    },
  });
  shortLived = mountDeviceCodeIssuer<Subject>(simulator, {
    variant: 'rfc8628',
    paths: { authorization: '/short/device/code', token: '/short/token', verification: '/short/device' },
    intervalSeconds: INTERVAL_SECONDS,
    expiresInSeconds: 1,
    controlPrefix: '/__sim/short-device-codes',
    issueTokens: () => ({ access_token: 'never' }),
  });
  // The chat issuer's PKCE exchange (§6 step 4), as the host simulator's /oauth/token would do it.
  simulator.route('POST', '/oauth/token', async (request, response) => {
    const body = request.body as Record<string, string>;
    const entry = exchangeCodes.get(body.code);
    const verified =
      entry &&
      createHash('sha256')
        .update(body.code_verifier ?? '')
        .digest('base64url') === entry.challenge;
    if (!verified || body.grant_type !== 'authorization_code' || !body.redirect_uri?.endsWith('/deviceauth/callback')) {
      return response.json(400, { error: 'invalid_grant', error_description: 'bad code' });
    }
    exchangeCodes.delete(body.code);
    return response.json(200, { access_token: `chat-at-${entry.subject?.name ?? 'default'}`, id_token: 'id', refresh_token: 'chat-rt' });
  });
  await simulator.start();
});

afterAll(() => simulator.close());

const rfcGrant = (): DeviceCodeGrant => ({
  lane: 'test',
  variant: RFC_8628,
  clientId: CLIENT_ID,
  scope: 'openid offline_access',
  deviceAuthorizationUrl: `${simulator.url}/oauth/device/code`,
  tokenUrl: `${simulator.url}/oauth/device/token`,
});

const chatGrant = (): DeviceCodeGrant => ({
  lane: 'test',
  variant: CHAT_DEVICE_AUTH,
  clientId: CLIENT_ID,
  deviceAuthorizationUrl: `${simulator.url}/api/accounts/deviceauth/usercode`,
  tokenUrl: `${simulator.url}/api/accounts/deviceauth/token`,
  verificationUrl: `${simulator.url}/codex/device`,
  codeExchange: { url: `${simulator.url}/oauth/token`, redirectUri: `${simulator.url}/deviceauth/callback` },
});

/** A control route of the simulator, as a test in another process would call it. */
const control = (path: string, body: unknown) =>
  fetch(`${simulator.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('RFC 8628', () => {
  it('polls while pending and answers the tokens once the code is approved through the control route', async () => {
    const grant = rfcGrant();
    const authorization = await requestDeviceCode(grant);
    expect(authorization.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(authorization.verificationUrl).toBe(`${simulator.url}/device?user_code=${authorization.userCode}`);
    expect(authorization.intervalSeconds).toBe(INTERVAL_SECONDS);
    const polls: number[] = [];
    const tokens = pollDeviceToken(grant, authorization, {
      onPoll: ({ attempt }) => {
        polls.push(attempt);
        // Decided only after two polls found it pending.
        if (attempt === 3)
          void control('/__sim/device-codes/approve', {
            userCode: authorization.userCode.toLowerCase(),
            subject: { name: 'second-account' },
          });
      },
    });
    await expect(tokens).resolves.toEqual({
      accessToken: 'at-second-account',
      refreshToken: 'rt-1',
      idToken: undefined,
      expiresInSeconds: 3600,
      tokenType: 'Bearer',
      scope: 'openid',
    });
    const record = rfc.codes().find((code) => code.userCode === authorization.userCode);
    expect(record).toMatchObject({ state: 'granted', slowDowns: 0 });
    expect(record!.polls).toBeGreaterThanOrEqual(3);
    const sent = simulator.requests({ route: 'POST /oauth/device/token' }).at(-1)!;
    expect(sent.body).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', client_id: CLIENT_ID });
    expect(simulator.requests({ route: 'POST /oauth/device/code' }).at(-1)!.body).toEqual({
      client_id: CLIENT_ID,
      scope: 'openid offline_access',
    });
  });

  it('adds 5 s to the interval after slow_down, so the issuer never has to say it twice', async () => {
    const grant = rfcGrant();
    const authorization = await requestDeviceCode(grant);
    expect(rfc.slowDown(authorization.userCode)).toBe(true);
    const intervals: number[] = [];
    const tokens = pollDeviceToken(grant, authorization, {
      onPoll: ({ attempt, intervalSeconds }) => {
        intervals.push(intervalSeconds);
        if (attempt === 2) rfc.approve(authorization.userCode, { name: 'slow' });
      },
    });
    await expect(tokens).resolves.toMatchObject({ accessToken: 'at-slow' });
    expect(intervals).toEqual([INTERVAL_SECONDS, INTERVAL_SECONDS + 5]);
    expect(rfc.codes().find((code) => code.userCode === authorization.userCode)).toMatchObject({ slowDowns: 1, polls: 2 });
  }, 20_000);

  it('ends denied when the person declines on the verification page', async () => {
    const grant = rfcGrant();
    const authorization = await requestDeviceCode(grant);
    const page = await fetch(authorization.verificationUrl);
    expect(await page.text()).toContain(`value="${authorization.userCode}"`);
    const decided = await fetch(`${simulator.url}/device`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `user_code=${authorization.userCode}&decision=deny`,
    });
    expect(decided.status).toBe(200);
    const error = await failureOf(pollDeviceToken(grant, authorization));
    expect(error).toBeInstanceOf(DeviceCodeError);
    expect(error).toMatchObject({ outcome: 'denied', issuerCode: 'access_denied' });
  });

  it('ends expired when the issuer answers expired_token', async () => {
    const grant = rfcGrant();
    const authorization = await requestDeviceCode(grant);
    expect((await control('/__sim/device-codes/expire', { userCode: authorization.userCode })).status).toBe(200);
    expect(await failureOf(pollDeviceToken(grant, authorization))).toMatchObject({ outcome: 'expired', issuerCode: 'expired_token' });
  });

  it('ends expired once the lifetime the issuer announced has passed', async () => {
    const grant = {
      ...rfcGrant(),
      clientId: 'any',
      deviceAuthorizationUrl: `${simulator.url}/short/device/code`,
      tokenUrl: `${simulator.url}/short/token`,
    };
    const authorization = await requestDeviceCode(grant);
    expect(authorization.expiresInSeconds).toBe(1);
    const error = await failureOf(pollDeviceToken(grant, authorization));
    expect(error).toMatchObject({ outcome: 'expired' });
    expect(shortLived.codes().find((code) => code.userCode === authorization.userCode)!.state).toBe('expired');
  });

  it('repeats polls that fail in transit and gives up after three in a row', async () => {
    const grant = rfcGrant();
    const recovering = await requestDeviceCode(grant);
    simulator.fault('POST /oauth/device/token', { status: 503, times: 2 });
    rfc.approve(recovering.userCode);
    await expect(pollDeviceToken(grant, recovering)).resolves.toMatchObject({ accessToken: 'at-default' });

    const failing = await requestDeviceCode(grant);
    simulator.fault('POST /oauth/device/token', { status: 502, times: 3 });
    const error = await failureOf(pollDeviceToken(grant, failing));
    expect(error).toMatchObject({ outcome: 'failed' });
    simulator.clearFaults();
  }, 20_000);

  it('stops at once when aborted, with the signal reason', async () => {
    const grant = rfcGrant();
    const authorization = await requestDeviceCode(grant);
    const controller = new AbortController();
    const reason = new Error('cancelled by the test');
    const polling = pollDeviceToken(grant, authorization, {
      signal: controller.signal,
      onPoll: ({ attempt }) => attempt === 2 && controller.abort(reason),
    });
    expect(await failureOf(polling)).toBe(reason);
  });

  it('refuses a client the issuer does not know, naming the issuer error', async () => {
    const error = await failureOf(requestDeviceCode({ ...rfcGrant(), clientId: 'stranger' }));
    expect(error).toMatchObject({ failure: 'http', status: 401, vendorCode: 'invalid_client' });
  });
});

describe('the chat vendor variant (§6)', () => {
  it('reads 403 as pending, then exchanges the authorization code with its PKCE verifier', async () => {
    const grant = chatGrant();
    const authorization = await requestDeviceCode(grant);
    expect(authorization.verificationUrl).toBe(`${simulator.url}/codex/device`);
    // §6: "expires in 15 minutes"; the interval came as a string.
    expect(authorization.expiresInSeconds).toBe(900);
    expect(authorization.intervalSeconds).toBe(INTERVAL_SECONDS);
    const tokens = pollDeviceToken(grant, authorization, {
      onPoll: ({ attempt }) =>
        attempt === 2 && void control('/__sim/chat-device-codes/approve', { userCode: authorization.userCode, subject: { name: 'work' } }),
    });
    await expect(tokens).resolves.toMatchObject({ accessToken: 'chat-at-work', refreshToken: 'chat-rt', idToken: 'id' });
    const polls = simulator.requests({ route: 'POST /api/accounts/deviceauth/token' });
    expect(polls.some((entry) => entry.status === 403)).toBe(true);
    expect(polls.at(-1)!.body).toEqual({ device_auth_id: expect.any(String), user_code: authorization.userCode });
    expect(simulator.requests({ route: 'POST /oauth/token' }).at(-1)!.body).toMatchObject({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
    });
    expect(chat.codes().find((code) => code.userCode === authorization.userCode)!.state).toBe('granted');
  });

  it('ends denied when the person declines', async () => {
    const grant = chatGrant();
    const authorization = await requestDeviceCode(grant);
    chat.deny(authorization.userCode);
    expect(await failureOf(pollDeviceToken(grant, authorization))).toMatchObject({ outcome: 'denied' });
  });

  it('lists codes on the control route without their device codes', async () => {
    const listed = (await (await fetch(`${simulator.url}/__sim/device-codes`)).json()) as { codes: Record<string, unknown>[] };
    expect(listed.codes.length).toBeGreaterThan(0);
    expect(JSON.stringify(listed)).not.toContain('dc_');
  });
});
