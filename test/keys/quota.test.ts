import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlphaSession, startAlphaSimulator, type AlphaSimulator } from '../../src/sim/alpha/index.js';
import { createOauthSession } from '../../src/sim/responses-simulator.js';
import { startSimulatorSuite, type SimulatorSuite } from '../../src/sim/suite.js';
import { quotaBody, type QuotaBody } from '../../src/studio/api/quota.js';
import { makeTempHome } from '../helpers/studio.js';
import { startKeysRig, type KeysRig } from './rig.js';

// GET /api/quota over real HTTP: the chat session's bar, alpha's (monthly with
// billing dollars, or weekly), epsilon's; the values set on the simulators
// through their control routes; no call without a credential; a failing probe
// marks its own bar only.

let suite: SimulatorSuite;
let alpha: AlphaSimulator;

beforeAll(async () => {
  [suite, alpha] = await Promise.all([startSimulatorSuite(), startAlphaSimulator()]);
});
afterAll(() => Promise.all([suite.close(), alpha.close()]));

const alphaUpstreams = () => ({
  alpha: alpha.apiBaseUrl,
  'alpha-api': alpha.apiBaseUrl,
  'alpha.issuer': alpha.issuerUrl,
  'alpha.billing': alpha.billingUrl,
});

/** A control route of a simulator, as a test in another process would set it. */
async function control(url: string, method: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
}

const quota = async (rig: KeysRig): Promise<QuotaBody> => {
  const answer = await rig.json('GET', '/api/quota');
  expect(answer.status).toBe(200);
  return quotaBody.strict().parse(answer.body);
};

describe('GET /api/quota without credentials', () => {
  it('answers authenticated: false for each bar without calling out', async () => {
    const home = makeTempHome('svc-quota-');
    const rig = await startKeysRig({
      suite,
      env: { SVC_OAUTH_AUTH_FILE: join(home, 'none.json'), SVC_ALPHA_AUTH_FILE: join(home, 'none-alpha.json') },
      upstreams: alphaUpstreams(),
    });
    try {
      const marks = [suite.simulators.responses.simulator, suite.simulators.epsilon.simulator, alpha.simulator].map(
        (simulator) => simulator.requests().length,
      );
      const body = await quota(rig);
      for (const provider of ['oauth', 'alpha', 'epsilon'] as const) {
        expect(body[provider]).toMatchObject({ provider, authenticated: false, windows: [] });
        expect(body[provider].reason).toBeTruthy();
      }
      expect(
        [suite.simulators.responses.simulator, suite.simulators.epsilon.simulator, alpha.simulator].map(
          (simulator) => simulator.requests().length,
        ),
      ).toEqual(marks);
    } finally {
      await rig.stop();
    }
  });
});

describe('GET /api/quota with every account signed in', () => {
  let rig: KeysRig;
  beforeAll(async () => {
    const home = makeTempHome('svc-quota-');
    const chatFile = join(home, 'chat-auth.json');
    const alphaFile = join(home, 'alpha-auth.json');
    writeFileSync(chatFile, JSON.stringify(createOauthSession(suite.simulators.responses)), { mode: 0o600 });
    writeFileSync(alphaFile, JSON.stringify(createAlphaSession(alpha)), { mode: 0o600 });
    rig = await startKeysRig({
      suite,
      env: { SVC_OAUTH_AUTH_FILE: chatFile, SVC_ALPHA_AUTH_FILE: alphaFile, EPSILON_API_KEY: suite.keys.epsilon },
      upstreams: alphaUpstreams(),
    });
  });
  afterAll(() => rig.stop());

  it('shows the values the simulators were set to: chat windows, alpha billing and monthly bar, epsilon battery', async () => {
    await control(suite.simulators.responses.url, 'PUT', '/__sim/usage', { primaryUsedPercent: 42.4, secondaryUsedPercent: 7 });
    await control(alpha.url, 'PUT', '/__sim/alpha/billing', {
      usedCents: 7500,
      limitCents: 30_000,
      periodEnd: '2026-12-31T23:59:59.000Z',
      weekly: null,
    });
    await control(suite.simulators.epsilon.url, 'PUT', '/__sim/epsilon/account', { chargePercent: 30, purchasedCredits: 250 });
    const body = await quota(rig);

    expect(body.oauth).toMatchObject({
      provider: 'oauth',
      authenticated: true,
      account: { email: suite.simulators.responses.account.email, plan: 'plus' },
    });
    expect(body.oauth.windows.map(({ label, percent }) => [label, percent])).toEqual([
      ['5h', 42],
      ['7d', 7],
    ]);
    expect(Date.parse(body.oauth.windows[0].resetsAt!)).toBeGreaterThan(Date.parse('2026-01-01'));

    expect(body.alpha).toEqual({
      provider: 'alpha',
      authenticated: true,
      account: { email: alpha.billing.email, plan: 'standard' },
      windows: [{ label: 'monthly', percent: 25, resetsAt: '2026-12-31T23:59:59.000Z' }],
      billing: { usedUsd: 75, limitUsd: 300 },
    });

    expect(body.epsilon).toMatchObject({ provider: 'epsilon', authenticated: true, account: { email: null, plan: 'Tier 3' } });
    expect(body.epsilon.windows).toEqual([{ label: 'v5-battery', percent: 70, resetsAt: expect.any(String) }]);
    expect(body.epsilon.epsilonAccount).toEqual({
      active: true,
      isNegative: false,
      fixedCredits: 10_000,
      purchasedCredits: 250,
      meter: 'charge',
    });

    // The chat bar was read with the session's account header, and the billing with the bearer only.
    expect(suite.simulators.responses.simulator.lastRequest({ route: 'GET /backend-api/wham/usage' })!.headers['chatgpt-account-id']).toBe(
      suite.simulators.responses.account.accountId,
    );
  });

  it('reads the weekly credits of an account on them', async () => {
    await control(alpha.url, 'PUT', '/__sim/alpha/billing', {
      weekly: { percent: 61.6, end: '2026-12-07T00:00:00.000Z' },
      subscriptionName: 'Alpha Pro',
    });
    const body = await quota(rig);
    expect(body.alpha).toEqual({
      provider: 'alpha',
      authenticated: true,
      account: { email: alpha.account.email, plan: 'Alpha Pro' },
      windows: [{ label: 'weekly', percent: 62, resetsAt: '2026-12-07T00:00:00.000Z' }],
    });
    expect(alpha.simulator.lastRequest({ route: 'GET /billing-proxy/v1/billing' })!.headers['x-userid']).toBe(alpha.account.userId);
    await control(alpha.url, 'PUT', '/__sim/alpha/billing', { weekly: null });
  });

  it('marks only the failing bar: error for a vendor failure, authenticated: false for a refusal', async () => {
    suite.simulators.responses.simulator.fault('GET /backend-api/wham/usage', { status: 503 });
    // Both the weekly view and the monthly meter refuse the token.
    alpha.simulator.fault('GET /billing-proxy/v1/billing', { status: 401, times: 2 });
    suite.simulators.epsilon.simulator.fault('GET /user/subscription', { disconnectAfterBytes: 0 });
    const body = await quota(rig);
    expect(body.oauth).toMatchObject({ authenticated: true, error: true, windows: [] });
    expect(body.oauth.reason).toMatch(/503/);
    expect(body.alpha).toMatchObject({ authenticated: false, windows: [] });
    expect(body.epsilon).toMatchObject({ authenticated: true, error: true, windows: [] });
    expect(JSON.stringify(body)).not.toContain(suite.keys.epsilon);
  });
});
