import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BETA_ROUTES, startBetaSimulator, type BetaSimulator } from '../../src/sim/beta/simulator.js';
import { expectError, expectImage, lastRequestId, requestsAfter, startBetaRig, type BetaRig } from './beta-api-rig.js';

// The beta-api lane's `cloud` mode, over real HTTP: the service account's
// JWT-bearer exchange at the simulated token endpoint (signed by the official
// auth library, verified by the simulator), then a bearer token on the
// cloud-style URL; which mode runs when; and the cloud mode's own failures.

let sim: BetaSimulator;
let cloud: BetaRig;

beforeAll(async () => {
  sim = await startBetaSimulator();
  cloud = await startBetaRig(sim, { key: false, serviceAccount: sim.serviceAccountJson() });
});

afterAll(async () => {
  await cloud?.stop();
  await sim?.close();
});

/** The key file with another field value (or a key this simulator does not know). */
const keyFile = (changes: Record<string, unknown>): string => JSON.stringify({ ...sim.serviceAccount, ...changes });

describe('beta-api cloud mode', () => {
  it('exchanges a signed JWT for a token, calls the cloud URL with it, and renders 1K 1:1 whatever was asked', async () => {
    const mark = lastRequestId(sim);
    const result = await expectImage(
      await cloud.generate({ prompt: 'a cloud castle', options: { aspectRatio: '16:9', resolution: '2K' } }),
    );
    expect(result.images[0]).toMatchObject({ width: 1024, height: 1024 });
    expect(result.settings).toEqual({
      mode: 'cloud',
      upstreamModel: 'beta-3.1-flash-image',
      aspectRatio: '1:1',
      resolution: '1K',
      size: '1024x1024',
      imageSize: null,
      ignoredOptions: ['aspectRatio', 'resolution'],
      estimatedCostUsd: 0.067,
      references: 0,
      action: 'generate',
    });

    const [exchange] = requestsAfter(sim, mark, BETA_ROUTES.token);
    expect(exchange).toMatchObject({ status: 200, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(exchange.body).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' });
    // The signed assertion is a credential: the log keeps it masked.
    expect(String((exchange.body as { assertion: string }).assertion)).toMatch(/…/);

    const [call] = requestsAfter(sim, mark, BETA_ROUTES.cloudGenerate);
    expect(call.path).toBe('/v1/projects/sim-project/locations/global/publishers/google/models/beta-3.1-flash-image:generateContent');
    expect(call.headers.authorization).toMatch(/^Bearer /);
    expect(call.headers['x-goog-api-key']).toBeUndefined();
    // The cloud endpoint is sent no image controls.
    expect(call.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a cloud castle' }] }],
      generationConfig: { responseModalities: ['IMAGE'] },
    });
  });

  it('reuses the token until it nears expiry: a second image makes no second exchange', async () => {
    await expectImage(await cloud.generate({ prompt: 'first' }));
    const mark = lastRequestId(sim);
    const pro = await expectImage(await cloud.generate({ prompt: 'second', model: 'nano-fruit-pro' }));
    expect(pro.settings).toMatchObject({ mode: 'cloud', upstreamModel: 'beta-3-pro-image', estimatedCostUsd: 0.134 });
    expect(requestsAfter(sim, mark, BETA_ROUTES.token)).toEqual([]);
    expect(requestsAfter(sim, mark, BETA_ROUTES.cloudGenerate)).toHaveLength(1);
  });

  it("the studio's token URL (SVC_BETA_TOKEN_URL / beta-api.token) wins over the key file's token_uri", async () => {
    const elsewhere = await startBetaRig(sim, {
      key: false,
      serviceAccount: keyFile({ token_uri: 'http://127.0.0.1:9/token' }),
      tokenUrl: sim.tokenUrl,
    });
    try {
      await expectImage(await elsewhere.generate({ prompt: 'via the configured token URL' }));
    } finally {
      await elsewhere.stop();
    }
  });
});

describe('which mode runs', () => {
  it('both configured and no saved mode: cloud; saved "apikey": the key; saved "cloud": cloud', async () => {
    const both = { key: sim.apiKey, serviceAccount: sim.serviceAccountJson() };
    for (const [betaAuthMode, mode] of [
      [undefined, 'cloud'],
      ['apikey', 'apikey'],
      ['cloud', 'cloud'],
    ] as const) {
      const rig = await startBetaRig(sim, { ...both, ...(betaAuthMode ? { betaAuthMode } : {}) });
      try {
        const result = await expectImage(await rig.generate({ prompt: `mode ${mode}`, options: { aspectRatio: '3:2' } }));
        expect({ betaAuthMode, mode: result.settings.mode, width: result.images[0].width }).toEqual({
          betaAuthMode,
          mode,
          width: mode === 'cloud' ? 1024 : 1264,
        });
      } finally {
        await rig.stop();
      }
    }
  });

  it("credentials saved in config.json work as the environment's do (keys.cloud, keys.beta)", async () => {
    const saved = await startBetaRig(sim, {
      key: false,
      configKeys: { cloud: sim.serviceAccountJson(), beta: sim.apiKey },
      betaAuthMode: 'apikey',
    });
    const cloudOnly = await startBetaRig(sim, { key: false, configKeys: { cloud: sim.serviceAccountJson() } });
    try {
      expect((await expectImage(await saved.generate({ prompt: 'saved key' }))).settings.mode).toBe('apikey');
      expect((await expectImage(await cloudOnly.generate({ prompt: 'saved account' }))).settings.mode).toBe('cloud');
    } finally {
      await saved.stop();
      await cloudOnly.stop();
    }
  });

  it('a saved mode whose credential is missing uses the one that is configured', async () => {
    const rig = await startBetaRig(sim, { betaAuthMode: 'cloud' });
    try {
      expect((await expectImage(await rig.generate({ prompt: 'key only' }))).settings.mode).toBe('apikey');
    } finally {
      await rig.stop();
    }
  });
});

describe('cloud mode failures', () => {
  it('AUTH_API_KEY_INVALID before any call: a service account that is not JSON, or not a key file; the key never echoed', async () => {
    for (const [serviceAccount, says] of [
      ['{not json', 'not JSON'],
      [keyFile({ type: 'authorized_user' }), '"type"'],
    ] as const) {
      const rig = await startBetaRig(sim, { key: false, serviceAccount });
      const mark = lastRequestId(sim);
      try {
        const body = await expectError(await rig.generate({ prompt: 'x' }), 401, 'AUTH_API_KEY_INVALID');
        expect(body.error.message).toContain(says);
        expect(JSON.stringify(body)).not.toContain('PRIVATE KEY');
        expect(requestsAfter(sim, mark)).toEqual([]);
      } finally {
        await rig.stop();
      }
    }
  });

  it('AUTH_API_KEY_INVALID: the token endpoint refuses a wrong signature and an unknown account', async () => {
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const cases = [
      [keyFile({ private_key: otherKey, private_key_id: 'forged' }), 'Invalid JWT Signature.'],
      [keyFile({ client_email: 'nobody@sim-project.iam.gserviceaccount.com' }), 'account not found'],
    ] as const;
    for (const [serviceAccount, says] of cases) {
      const rig = await startBetaRig(sim, { key: false, serviceAccount });
      try {
        const body = await expectError(await rig.generate({ prompt: 'x' }), 401, 'AUTH_API_KEY_INVALID');
        expect(body.error.message).toContain(says);
        expect(body.error.details).toMatchObject({ upstreamStatus: 400, upstreamCode: 'invalid_grant' });
      } finally {
        await rig.stop();
      }
    }
  });

  it('AUTH_API_KEY_INVALID: a token for another project is refused by the cloud surface (403)', async () => {
    const rig = await startBetaRig(sim, { key: false, serviceAccount: keyFile({ project_id: 'someone-else' }) });
    try {
      const body = await expectError(await rig.generate({ prompt: 'x' }), 401, 'AUTH_API_KEY_INVALID');
      expect(body.error.details).toMatchObject({ upstreamStatus: 403, upstreamCode: 'PERMISSION_DENIED' });
    } finally {
      await rig.stop();
    }
  });

  it("BETA_API_RATE_LIMITED: the cloud surface's short 429 has no retry hint", async () => {
    const response = await cloud.generate({ prompt: 'busy [sim:ratelimit]' });
    const body = await expectError(response, 429, 'BETA_API_RATE_LIMITED');
    expect(response.headers.get('retry-after')).toBeNull();
    expect(body.error.details).toMatchObject({ upstreamStatus: 429, upstreamCode: 'RESOURCE_EXHAUSTED' });
  });

  it('BETA_API_SAFETY_BLOCKED in cloud mode too', async () => {
    await expectError(await cloud.generate({ prompt: 'forbidden [sim:block-prompt]' }), 422, 'BETA_API_SAFETY_BLOCKED');
  });

  it('GENERATION_TIMEOUT: one budget covers the token exchange', async () => {
    const rig = await startBetaRig(sim, { key: false, serviceAccount: sim.serviceAccountJson(), env: { SVC_BETA_API_TIMEOUT_MS: '300' } });
    try {
      sim.simulator.fault(BETA_ROUTES.token, { latencyMs: 5000 });
      await expectError(await rig.generate({ prompt: 'slow token' }), 504, 'GENERATION_TIMEOUT');
    } finally {
      sim.simulator.clearFaults();
      await rig.stop();
    }
  });

  it('UPSTREAM_FAILED: the token endpoint fails (500)', async () => {
    const rig = await startBetaRig(sim, { key: false, serviceAccount: sim.serviceAccountJson() });
    try {
      sim.simulator.fault(BETA_ROUTES.token, { status: 500, body: { error: 'internal_failure', error_description: 'Simulated.' } });
      await expectError(await rig.generate({ prompt: 'x' }), 502, 'UPSTREAM_FAILED');
    } finally {
      await rig.stop();
    }
  });
});
