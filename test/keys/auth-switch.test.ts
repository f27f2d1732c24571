import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAlphaSimulator, type AlphaSimulator } from '../../src/sim/alpha/index.js';
import { createOauthSession, startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { SIGN_INS_PER_MINUTE } from '../../src/studio/auth/switch.js';
import { oauthStatusBody, switchStarted, switchStatus, type SwitchStatus } from '../../src/studio/api/auth.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { waitFor } from '../lanes/gamma-delta-epsilon-rig.js';
import { expectCode } from './rig.js';

// Account switching over real HTTP: POST /api/auth/switch starts a device-code
// sign-in, the studio polls the issuer (the chat vendor's §6 variant for
// `oauth`, RFC 8628 for `alpha`), the simulator's control routes decide the
// code, and the status goes pending → complete (the session file replaced, the
// lane running as the new account), error, or expired.

const SECOND_ACCOUNT = {
  email: 'second@sim.local',
  accountId: '0a1b2c3d-0000-4000-8000-000000000002',
  userId: 'user-sim-second',
  planType: 'pro',
};

let chat: ResponsesSimulator;
let shortChat: ResponsesSimulator;
let alpha: AlphaSimulator;
let studio: TestStudio;
let shortStudio: TestStudio;
let chatFile: string;
let alphaFile: string;

const studioFor = async (sim: ResponsesSimulator, home = makeTempHome('svc-switch-')) => {
  chatFile = join(home, 'chat', 'auth.json');
  alphaFile = join(home, 'alpha', 'auth.json');
  return startTestStudio({
    env: { SVC_HOME: home, SVC_OAUTH_AUTH_FILE: chatFile, SVC_ALPHA_AUTH_FILE: alphaFile },
    upstreams: {
      oauth: sim.backendBaseUrl,
      'oauth.issuer': sim.issuerUrl,
      alpha: alpha.apiBaseUrl,
      'alpha.issuer': alpha.issuerUrl,
      'alpha.billing': alpha.billingUrl,
    },
  });
};

beforeAll(async () => {
  [chat, shortChat, alpha] = await Promise.all([
    startResponsesSimulator({ deviceLogin: { intervalSeconds: 0.1 } }),
    startResponsesSimulator({ deviceLogin: { intervalSeconds: 0.1, expiresInSeconds: 1 } }),
    startAlphaSimulator({ login: { intervalSeconds: 0.1 } }),
  ]);
  shortStudio = await studioFor(shortChat);
  studio = await studioFor(chat);
});
afterAll(async () => {
  await Promise.all([studio?.stop(), shortStudio?.stop()]);
  await Promise.all([chat.close(), shortChat.close(), alpha.close()]);
});

const call = async (target: TestStudio, method: string, path: string, body?: unknown) => {
  const response = await target.request(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } },
  };
};

const start = async (target: TestStudio, provider: string) => {
  const answer = await call(target, 'POST', '/api/auth/switch', { provider });
  expect(answer.status).toBe(200);
  return switchStarted.strict().parse(answer.body);
};

/** Follows the status (bounded) until it leaves pending. */
const settled = (target: TestStudio, sessionId: string): Promise<SwitchStatus> =>
  waitFor(`sign-in ${sessionId} to end`, async () => {
    const status = switchStatus.strict().parse((await call(target, 'GET', `/api/auth/switch/${sessionId}`)).body);
    return status.status === 'pending' ? undefined : status;
  });

const approve = (simUrl: string, prefix: string, userCode: string, subject?: unknown) =>
  fetch(`${simUrl}${prefix}/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ userCode, subject }),
  });

describe('the chat account (oauth lane, the vendor’s own device login)', () => {
  it('goes pending → complete once approved, replaces the session file and the lane runs as the new account', async () => {
    mkdirSync(join(studio.home, 'chat'), { mode: 0o700 });
    writeFileSync(chatFile, JSON.stringify(createOauthSession(chat)), { mode: 0o600 });
    const before = oauthStatusBody.strict().parse((await call(studio, 'GET', '/api/oauth/status')).body);
    expect(before.account).toMatchObject({ email: chat.account.email, plan: 'plus', accountId: chat.account.accountId });

    const started = await start(studio, 'oauth');
    expect(started).toMatchObject({
      provider: 'oauth',
      flow: 'device',
      variant: 'chat-device-auth',
      verificationUrl: `${chat.issuerUrl}/codex/device`,
      expiresIn: 900,
      interval: 0.1,
    });
    expect(started.sessionId).toMatch(/^[0-9a-f]{32}$/);
    expect((await call(studio, 'GET', `/api/auth/switch/${started.sessionId}`)).body).toMatchObject({
      status: 'pending',
      userCode: started.userCode,
      flow: 'device',
    });

    expect((await approve(chat.url, '/__sim/device-codes', started.userCode, SECOND_ACCOUNT)).status).toBe(200);
    expect(await settled(studio, started.sessionId)).toMatchObject({ status: 'complete', email: SECOND_ACCOUNT.email });

    expect(statSync(chatFile).mode & 0o777).toBe(0o600);
    const file = JSON.parse(readFileSync(chatFile, 'utf8')) as { auth_mode: string; tokens: Record<string, string> };
    expect(file.auth_mode).toBe('chatgpt');
    expect(file.tokens.account_id).toBe(SECOND_ACCOUNT.accountId);

    const after = oauthStatusBody.strict().parse((await call(studio, 'GET', '/api/oauth/status')).body);
    expect(after).toMatchObject({
      present: true,
      account: { email: SECOND_ACCOUNT.email, plan: 'pro', accountId: SECOND_ACCOUNT.accountId },
      needsRefresh: false,
      refreshable: true,
    });
    expect(JSON.stringify(after)).not.toContain(file.tokens.access_token);

    const generated = await call(studio, 'POST', '/api/generate', { prompt: 'a kite', provider: 'oauth' });
    expect(generated.status).toBe(200);
    expect(chat.simulator.lastRequest({ route: 'POST /backend-api/codex/responses' })!.headers['chatgpt-account-id']).toBe(
      SECOND_ACCOUNT.accountId,
    );
    // The exchange carried the PKCE verifier of the §6 answer.
    expect(chat.simulator.lastRequest({ route: 'POST /oauth/token' })!.body).toMatchObject({
      grant_type: 'authorization_code',
      code_verifier: expect.stringMatching(/…/),
    });
  });

  it('ends error (AUTH_SWITCH_DENIED) when declined, and leaves the session file alone', async () => {
    const fileBefore = readFileSync(chatFile, 'utf8');
    const started = await start(studio, 'oauth');
    chat.devices.deny(started.userCode);
    expect(await settled(studio, started.sessionId)).toMatchObject({ status: 'error', error: { code: 'AUTH_SWITCH_DENIED' } });
    expect(readFileSync(chatFile, 'utf8')).toBe(fileBefore);
  });

  it('ends expired after the code’s lifetime', async () => {
    const started = await start(shortStudio, 'oauth');
    expect(started.expiresIn).toBe(1);
    expect(await settled(shortStudio, started.sessionId)).toMatchObject({ status: 'expired' });
    expect(existsSync(join(shortStudio.home, 'chat', 'auth.json'))).toBe(false);
  });

  it('cancels on DELETE: nothing is saved, the session is forgotten, and a newer sign-in replaces a waiting one', async () => {
    const fileBefore = readFileSync(chatFile, 'utf8');
    const first = await start(studio, 'oauth');
    const second = await start(studio, 'oauth');
    expect((await call(studio, 'GET', `/api/auth/switch/${first.sessionId}`)).body).toMatchObject({
      status: 'error',
      error: { code: 'JOB_CANCELLED' },
    });
    const cancelled = await call(studio, 'DELETE', `/api/auth/switch/${second.sessionId}`);
    expect(cancelled.body).toEqual({ sessionId: second.sessionId, cancelled: true, status: 'pending' });
    expectCode(await call(studio, 'GET', `/api/auth/switch/${second.sessionId}`), 404, 'AUTH_SWITCH_NOT_FOUND');
    expectCode(await call(studio, 'DELETE', `/api/auth/switch/${second.sessionId}`), 404, 'AUTH_SWITCH_NOT_FOUND');
    // Approved after the studio stopped polling: nothing is written.
    chat.devices.approve(second.userCode, SECOND_ACCOUNT);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(readFileSync(chatFile, 'utf8')).toBe(fileBefore);
  });

  it('validates the body and answers a start failure in the error table’s codes', async () => {
    expectCode(await call(studio, 'POST', '/api/auth/switch', { provider: 'gamma' }), 400, 'BAD_REQUEST');
    expectCode(await call(studio, 'POST', '/api/auth/switch', { provider: 'oauth', flow: 'browser' }), 400, 'BAD_REQUEST');
    chat.simulator.fault('POST /api/accounts/deviceauth/usercode', { status: 404, body: { detail: 'Not Found' } });
    const disabled = await call(studio, 'POST', '/api/auth/switch', { provider: 'oauth' });
    expectCode(disabled, 502, 'UPSTREAM_FAILED');
    expect(disabled.body.error!.message).toMatch(/no device login/);
  });
});

describe('the alpha account (RFC 8628)', () => {
  it('goes pending → complete, writing the alpha session the lane and the quota bar use', async () => {
    const started = await start(studio, 'alpha');
    expect(started).toMatchObject({ provider: 'alpha', variant: 'rfc8628', interval: 0.1 });
    expect(started.verificationUrl).toContain(`user_code=${started.userCode}`);
    expect((await approve(alpha.url, '/__sim/alpha/device-codes', started.userCode)).status).toBe(200);
    expect(await settled(studio, started.sessionId)).toMatchObject({ status: 'complete', email: alpha.account.email });
    expect(statSync(alphaFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(alphaFile, 'utf8'))).toMatchObject({ email: alpha.account.email, accountId: alpha.account.userId });
    const quota = (await call(studio, 'GET', '/api/quota')).body as { alpha: Record<string, unknown> };
    expect(quota.alpha).toMatchObject({ authenticated: true, billing: { usedUsd: expect.any(Number), limitUsd: expect.any(Number) } });
  });

  it('ends expired when the issuer says the code expired', async () => {
    const started = await start(studio, 'alpha');
    expect(alpha.devices.expire(started.userCode)).toBe(true);
    expect(await settled(studio, started.sessionId)).toMatchObject({ status: 'expired' });
  });
});

describe('a bounded number of sign-ins per minute (issue 33, item 8)', () => {
  it(`starts at most ${SIGN_INS_PER_MINUTE} per account per minute, then answers 429 with Retry-After, other accounts unaffected`, async () => {
    const own = await studioFor(chat);
    try {
      for (let index = 0; index < SIGN_INS_PER_MINUTE; index += 1) await start(own, 'oauth');
      const before = chat.simulator.requests({ route: 'POST /api/accounts/deviceauth/usercode' }).length;
      const refused = await own.request('/api/auth/switch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ provider: 'oauth' }),
      });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({
        error: { code: 'AUTH_SWITCH_TOO_MANY', details: { provider: 'oauth', limit: SIGN_INS_PER_MINUTE } },
      });
      // The refused start never reached the issuer.
      expect(chat.simulator.requests({ route: 'POST /api/accounts/deviceauth/usercode' }).length).toBe(before);
      expect((await start(own, 'alpha')).provider).toBe('alpha');
    } finally {
      await own.stop();
    }
  });
});
