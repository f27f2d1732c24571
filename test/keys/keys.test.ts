import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintSecret } from '../../src/sim/harness.js';
import { startSimulatorSuite, type SimulatorSuite } from '../../src/sim/suite.js';
import { keyChangeBody, keysStatusBody } from '../../src/studio/api/keys.js';
import { expectCode, startKeysRig, type KeysRig } from './rig.js';

// Keys over real HTTP: status with live checks against the simulators, saving
// (checked first, written 0600, in force at once), removing, the environment's
// keys locked, and no key ever answered.

let suite: SimulatorSuite;

beforeAll(async () => {
  suite = await startSimulatorSuite();
});
afterAll(() => suite.close());

const configOf = (rig: KeysRig): Record<string, unknown> =>
  JSON.parse(readFileSync(join(rig.studio.home, 'config.json'), 'utf8')) as Record<string, unknown>;
const savedKeys = (rig: KeysRig): Record<string, string> | undefined => {
  try {
    return configOf(rig).keys as Record<string, string> | undefined;
  } catch {
    return undefined;
  }
};
const generate = (rig: KeysRig, body: Record<string, unknown>) =>
  rig.json('POST', '/api/generate', { prompt: 'a lighthouse at dawn', ...body });

describe('GET /api/keys/status', () => {
  let rig: KeysRig;
  beforeAll(async () => {
    rig = await startKeysRig({
      suite,
      env: {
        OMNI_API_KEY: suite.keys.omni,
        GAMMA_API_KEY: 'sim-wrong-gamma-key',
        DELTA_API_KEY: suite.keys.delta,
        CLOUD_SERVICE_ACCOUNT_JSON: suite.simulators.beta.serviceAccountJson(),
      },
    });
  });
  afterAll(() => rig.stop());

  it('answers the four namespaces and the other lanes apart, each masked with the verdict of a live check', async () => {
    const before = suite.simulators.responses.simulator.requests({ route: 'GET /v1/models' }).length;
    const answer = await rig.json('GET', '/api/keys/status');
    expect(answer.status).toBe(200);
    const body = keysStatusBody.strict().parse(answer.body);
    expect(Object.keys(body).sort()).toEqual(['alpha', 'betaAuthMode', 'beta', 'cloud', 'omni', 'otherKeys'].sort());
    expect(body.omni).toMatchObject({ env: 'OMNI_API_KEY', set: true, source: 'env', masked: 'si…ey', valid: 'valid' });
    expect(Date.parse(body.omni.checkedAt!)).not.toBeNaN();
    expect(body.beta).toMatchObject({ set: false, source: 'none', masked: null, valid: 'unchecked', checkedAt: null });
    expect(body.cloud).toMatchObject({
      set: true,
      source: 'env',
      valid: 'valid',
      projectId: suite.simulators.beta.serviceAccount.project_id,
      clientEmail: suite.simulators.beta.serviceAccount.client_email,
    });
    expect(body.cloud.masked).toMatch(/^.{4}….{4}$/);
    expect(body.otherKeys.gamma).toMatchObject({ set: true, valid: 'invalid' });
    expect(body.otherKeys.gamma.reason).toContain('refused');
    // delta's only route bills: no live check, and the answer says so.
    expect(body.otherKeys.delta).toMatchObject({ set: true, valid: 'unchecked', checkedAt: null, lastVerdict: null });
    expect(body.otherKeys.delta.reason).toMatch(/no endpoint to check/);
    expect(body.betaAuthMode).toEqual({ saved: null, effective: 'cloud' });
    expect(suite.simulators.responses.simulator.requests({ route: 'GET /v1/models' }).length).toBe(before + 1);
    // Never a key, a private key, or the key file.
    const text = JSON.stringify(answer.body);
    for (const secret of [
      suite.keys.omni,
      suite.keys.delta,
      'sim-wrong-gamma-key',
      suite.simulators.beta.serviceAccount.private_key.slice(40, 80),
      suite.simulators.beta.serviceAccount.private_key_id,
    ])
      expect(text).not.toContain(secret);
  });

  it('remembers verdicts, re-checks on ?verify=1, and says unchecked (with the last verdict) when the vendor cannot answer', async () => {
    const models = () => suite.simulators.responses.simulator.requests({ route: 'GET /v1/models' }).length;
    await rig.json('GET', '/api/keys/status');
    const seen = models();
    expect((await rig.json('GET', '/api/keys/status')).body.omni).toMatchObject({ valid: 'valid' });
    expect(models()).toBe(seen);

    const first = (await rig.json('GET', '/api/keys/status')).body.omni as { checkedAt: string };
    suite.simulators.responses.simulator.fault('GET /v1/models', { status: 503 });
    const down = (await rig.json('GET', '/api/keys/status?verify=1')).body.omni as Record<string, unknown>;
    expect(models()).toBe(seen + 1);
    expect(down).toMatchObject({ valid: 'unchecked', lastVerdict: 'valid', checkedAt: first.checkedAt });
    expect(down.reason).toMatch(/could not check/);

    const again = (await rig.json('GET', '/api/keys/status?verify=true')).body.omni as Record<string, unknown>;
    expect(again).toMatchObject({ valid: 'valid' });
    expect(again.lastVerdict).toBeUndefined();
  });

  it("takes no 200 that is not the vendor's answer for a verdict: a captive portal or a wrong base URL says unchecked (issue 33, item 8)", async () => {
    for (const body of ['<html><body>Sign in to the hotel Wi-Fi</body></html>', { ok: true }]) {
      suite.simulators.responses.simulator.fault('GET /v1/models', { status: 200, body, times: 1 });
      const portal = (await rig.json('GET', '/api/keys/status?verify=1')).body.omni as Record<string, unknown>;
      expect(portal).toMatchObject({ valid: 'unchecked', lastVerdict: 'valid' });
      expect(portal.reason).toMatch(/not JSON|not as its protocol says/);
    }
    expect((await rig.json('GET', '/api/keys/status?verify=1')).body.omni).toMatchObject({ valid: 'valid' });
  });

  it('refuses a query it does not know the values of', async () => {
    expectCode(await rig.json('GET', '/api/keys/status?verify=yes'), 400, 'BAD_REQUEST');
  });
});

describe('PUT and DELETE /api/keys/:provider', () => {
  let rig: KeysRig;
  beforeAll(async () => {
    rig = await startKeysRig({ suite, env: { DELTA_API_KEY: suite.keys.delta, EPSILON_API_KEY: suite.keys.epsilon } });
  });
  afterAll(() => rig.stop());

  it('saves nothing when the vendor refuses the key, and says so without the key', async () => {
    const key = 'sk-this-key-is-not-known-to-the-vendor';
    const answer = await rig.json('PUT', '/api/keys/omni', { apiKey: `  ${key}\n` });
    expectCode(answer, 401, 'AUTH_API_KEY_INVALID');
    expect(answer.body.error!.message).toMatch(/^The omni key was not saved: The omni vendor refused the key \(401/);
    expect(answer.body.error!.details).toMatchObject({ provider: 'omni', upstreamStatus: 401 });
    expect(JSON.stringify(answer.body)).not.toContain(key);
    expect(savedKeys(rig)?.omni).toBeUndefined();
    // The vendor saw the key trimmed (by fingerprint: its log never holds a key).
    expect(suite.simulators.responses.simulator.lastRequest({ route: 'GET /v1/models' })!.credentialFingerprint).toBe(
      fingerprintSecret(key),
    );
  });

  it('saves a key the vendor takes, 0600, masked in the answer, in force for the next job without a restart', async () => {
    expectCode(await generate(rig, { provider: 'api' }), 401, 'API_KEY_REQUIRED');
    const answer = await rig.json('PUT', '/api/keys/omni', { apiKey: suite.keys.omni });
    expect(answer.status).toBe(200);
    expect(keyChangeBody.strict().parse(answer.body)).toMatchObject({
      provider: 'omni',
      set: true,
      source: 'config',
      masked: 'si…ey',
      valid: 'valid',
    });
    expect(JSON.stringify(answer.body)).not.toContain(suite.keys.omni);
    expect(statSync(join(rig.studio.home, 'config.json')).mode & 0o777).toBe(0o600);
    expect(savedKeys(rig)?.omni).toBe(suite.keys.omni);
    const generated = await generate(rig, { provider: 'api', quality: 'low' });
    expect(generated.status).toBe(200);
    expect(suite.simulators.responses.simulator.lastRequest({ route: 'POST /v1/responses' })!.credentialFingerprint).toBe(
      fingerprintSecret(suite.keys.omni),
    );
    expect((await rig.json('GET', '/api/keys/status')).body.omni).toMatchObject({ source: 'config', valid: 'valid' });
  });

  it('removes a saved key, and answers removed: false when there is none', async () => {
    await rig.json('PUT', '/api/keys/omni', { apiKey: suite.keys.omni });
    const removed = await rig.json('DELETE', '/api/keys/omni');
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ provider: 'omni', removed: true, set: false, source: 'none' });
    expect(savedKeys(rig)?.omni).toBeUndefined();
    expect((await rig.json('DELETE', '/api/keys/omni')).body).toMatchObject({ removed: false, set: false });
    expectCode(await generate(rig, { provider: 'api' }), 401, 'API_KEY_REQUIRED');
  });

  it('saves an alpha key the vendor takes; one it does not know (its 400) is refused', async () => {
    const refused = await rig.json('PUT', '/api/keys/alpha', { apiKey: 'xai-not-a-key-the-simulator-knows' });
    expectCode(refused, 401, 'AUTH_API_KEY_INVALID');
    expect(refused.body.error!.details).toMatchObject({ provider: 'alpha', upstreamStatus: 400 });
    expect(savedKeys(rig)?.alpha).toBeUndefined();
    const saved = await rig.json('PUT', '/api/keys/alpha', { apiKey: suite.keys.alpha });
    expect(saved.body).toMatchObject({ provider: 'alpha', source: 'config', valid: 'valid' });
    expect(suite.simulators.alpha.simulator.lastRequest({ route: 'GET /v1/models' })!.credentialFingerprint).toBe(
      fingerprintSecret(suite.keys.alpha),
    );
    expect((await rig.json('DELETE', '/api/keys/alpha')).body).toMatchObject({ removed: true });
  });

  it('saves a beta key checked on the key surface, selecting the apikey mode; a refused one is not saved', async () => {
    const refused = await rig.json('PUT', '/api/keys/beta', { apiKey: 'AIzaNotAKeyTheSimulatorKnows000000000' });
    expectCode(refused, 401, 'AUTH_API_KEY_INVALID');
    expect(savedKeys(rig)?.beta).toBeUndefined();
    const saved = await rig.json('PUT', '/api/keys/beta', { apiKey: suite.keys.beta });
    expect(saved.body).toMatchObject({ provider: 'beta', source: 'config', valid: 'valid' });
    expect(configOf(rig).betaAuthMode).toBe('apikey');
    expect((await rig.json('GET', '/api/keys/status')).body.betaAuthMode).toEqual({ saved: 'apikey', effective: 'apikey' });
    await rig.json('DELETE', '/api/keys/beta');
    expect(configOf(rig).betaAuthMode).toBeUndefined();
  });

  it('validates a service account by a real token exchange, saves it and sets betaAuthMode to cloud', async () => {
    const beta = suite.simulators.beta;
    expectCode(await rig.json('PUT', '/api/keys/cloud', { serviceAccountJson: '{"type":' }), 400, 'BAD_REQUEST');
    const noKey = await rig.json('PUT', '/api/keys/cloud', {
      serviceAccountJson: JSON.stringify({ ...beta.serviceAccount, private_key: undefined }),
    });
    expectCode(noKey, 400, 'BAD_REQUEST');
    expect(noKey.body.error!.details).toMatchObject({ field: 'serviceAccountJson.private_key' });
    const tooBig = await rig.json('PUT', '/api/keys/cloud', { serviceAccountJson: ' '.repeat(10) + 'x'.repeat(20_000) });
    expectCode(tooBig, 400, 'BAD_REQUEST');

    // A key file of an account the vendor deleted: the exchange refuses it.
    const gone = await beta.accounts.create({ name: 'deleted-account' });
    beta.accounts.remove(gone.client_email);
    const refused = await rig.json('PUT', '/api/keys/cloud', { serviceAccountJson: JSON.stringify(gone) });
    expectCode(refused, 401, 'AUTH_API_KEY_INVALID');
    expect(JSON.stringify(refused.body)).not.toContain(gone.private_key.slice(40, 80));
    expect(savedKeys(rig)?.cloud).toBeUndefined();

    const tokens = beta.simulator.requests({ route: 'POST /token' }).length;
    const saved = await rig.json('PUT', '/api/keys/cloud', { serviceAccountJson: beta.serviceAccountJson() });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      provider: 'cloud',
      source: 'config',
      valid: 'valid',
      projectId: beta.serviceAccount.project_id,
      clientEmail: beta.serviceAccount.client_email,
    });
    expect(JSON.stringify(saved.body)).not.toContain(beta.serviceAccount.private_key.slice(40, 80));
    expect(beta.simulator.requests({ route: 'POST /token' }).length).toBe(tokens + 1);
    expect(configOf(rig).betaAuthMode).toBe('cloud');

    // In force at once: the next beta-api job runs on the cloud surface.
    const generated = await generate(rig, { provider: 'beta-api' });
    expect(generated.status).toBe(200);
    expect(beta.simulator.lastRequest()!.route).toMatch(/^POST \/v1\/projects\//);

    const removed = await rig.json('DELETE', '/api/keys/cloud');
    expect(removed.body).toMatchObject({ removed: true, set: false });
    expect(configOf(rig).betaAuthMode).toBeUndefined();
  });

  it('saves nothing when the vendor cannot be asked, with the code of why', async () => {
    suite.simulators.responses.simulator.fault('GET /v1/models', { status: 503 });
    const failed = await rig.json('PUT', '/api/keys/omni', { apiKey: suite.keys.omni });
    expectCode(failed, 502, 'UPSTREAM_FAILED');
    expect(failed.body.error!.message).toMatch(/^The omni key was not saved/);
    expect(savedKeys(rig)?.omni).toBeUndefined();
  });

  it('checks the shape of a save body without echoing it', async () => {
    for (const body of [
      { apiKey: 'short' },
      { apiKey: 'has a space in the middle' },
      { apiKey: 'x'.repeat(600) },
      { apiKey: 'sim-ok-but', extra: 'sim-secret-extra-value' },
      {},
    ]) {
      const answer = await rig.json('PUT', '/api/keys/omni', body);
      expectCode(answer, 400, 'BAD_REQUEST');
      for (const value of Object.values(body)) expect(JSON.stringify(answer.body)).not.toContain(value);
    }
    expectCode(await rig.json('PUT', '/api/keys/omni', '{not json'), 400, 'INVALID_JSON');
  });

  it('has routes for the spec four only; the other lanes name their variable', async () => {
    const answer = await rig.json('PUT', '/api/keys/gamma', { apiKey: suite.keys.gamma });
    expectCode(answer, 400, 'BAD_REQUEST');
    expect(answer.body.error!.message).toContain('GAMMA_API_KEY');
    expect(answer.body.error!.details).toEqual({ field: 'provider', valid: ['omni', 'alpha', 'beta', 'cloud'] });
    expectCode(await rig.json('DELETE', '/api/keys/nope'), 400, 'BAD_REQUEST');
  });
});

describe('keys from the environment', () => {
  it('cannot be changed or removed: ENV_KEY_IMMUTABLE, and the saved file is left alone', async () => {
    const rig = await startKeysRig({
      suite,
      env: { BETA_API_KEY: suite.keys.beta, CLOUD_SERVICE_ACCOUNT_JSON: suite.simulators.beta.serviceAccountJson() },
    });
    try {
      for (const [method, path, body] of [
        ['DELETE', '/api/keys/beta', undefined],
        ['PUT', '/api/keys/beta', { apiKey: 'sim-another-beta-key' }],
        ['DELETE', '/api/keys/cloud', undefined],
      ] as const) {
        const answer = await rig.json(method, path, body);
        expectCode(answer, 409, 'ENV_KEY_IMMUTABLE');
        expect(answer.body.error!.details).toMatchObject({ env: path.endsWith('cloud') ? 'CLOUD_SERVICE_ACCOUNT_JSON' : 'BETA_API_KEY' });
        expect(JSON.stringify(answer.body)).not.toContain(suite.keys.beta);
      }
      expect(savedKeys(rig)).toBeUndefined();
    } finally {
      await rig.stop();
    }
  });
});

describe('the vendor key form', () => {
  it('is enforced when the studio talks to the vendor itself, before any call', async () => {
    // No upstream override for the api lane: its base URL is the vendor's.
    const rig = await startKeysRig({ suite, upstreams: { api: '' } });
    try {
      expect(rig.studio.ctx.configuredUpstreamUrl('api')).toBe('https://api.openai.com/v1');
      const answer = await rig.json('PUT', '/api/keys/omni', { apiKey: 'sim-omni-key-for-a-proxy' });
      expectCode(answer, 400, 'BAD_REQUEST');
      expect(answer.body.error!.message).toContain('starts with sk-');
      expect(answer.body.error!.details).toEqual({ field: 'apiKey', provider: 'omni' });
    } finally {
      await rig.stop();
    }
  });
});
