import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EPSILON_ROUTES, startEpsilonSimulator, type EpsilonSimulator } from '../../src/sim/epsilon/index.js';
import { fingerprintSecret } from '../../src/sim/harness.js';
import {
  expectError,
  generatedFiles,
  imageDataUrl,
  lastRequestId,
  requestsSince,
  startLaneRig,
  type LaneRig,
} from './gamma-delta-epsilon-rig.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// The epsilon lane end to end: a studio on an ephemeral port, its epsilon lane
// pointed at the epsilon simulator over HTTP. Every code the lane answers is
// triggered here, each ZIP guard with a crafted archive.

const ROUTE = EPSILON_ROUTES.generate;

let sim: EpsilonSimulator;
let rig: LaneRig;

beforeAll(async () => {
  sim = await startEpsilonSimulator();
  rig = await startLaneRig({ upstreams: { epsilon: sim.url }, env: { EPSILON_API_KEY: sim.token } });
});
afterAll(async () => {
  await rig?.stop();
  await sim?.close();
});

const generate = (body: Record<string, unknown>, on: LaneRig = rig) => on.post('/api/generate', { provider: 'epsilon', ...body });
const lastParameters = () => (sim.simulator.lastRequest({ route: ROUTE })?.body as { parameters: Record<string, unknown> }).parameters;

interface Result {
  provider: string;
  model: string;
  images: { filename: string; format: string; width: number; height: number; settings: Record<string, unknown> }[];
  settings: Record<string, unknown>;
}

describe('epsilon in discovery', () => {
  it('lists its models, controls, its 12 native options, no references and its codes', async () => {
    const body = (await (await rig.get('/api/capabilities')).json()) as { providers: Array<Record<string, unknown>> };
    const epsilon = body.providers.find((provider) => provider.id === 'epsilon');
    expect(epsilon).toMatchObject({
      built: true,
      operations: { generate: true, edit: false, mask: false },
      controls: ['size', 'negativePrompt'],
      maxInputImages: 0,
      timeoutSeconds: 180,
      defaultModel: 'epsilon-diffusion-5-full',
      codes: {
        tooManyReferences: 'EPSILON_REF_UNSUPPORTED',
        editUnsupported: 'EPSILON_EDIT_UNSUPPORTED',
        maskUnsupported: 'EPSILON_MASK_UNSUPPORTED',
      },
    });
    const options = epsilon?.options as { properties: Record<string, { enum?: string[]; minimum?: number; maximum?: number }> };
    expect(Object.keys(options.properties)).toEqual([
      'sampler',
      'noiseSchedule',
      'steps',
      'scale',
      'cfgRescale',
      'seed',
      'ucPresetId',
      'qualityPresetId',
      'autoSmea',
      'decrisper',
      'varietyPlus',
      'straightAlpha',
    ]);
    expect(options.properties.sampler.enum).toContain('k_euler');
    expect(options.properties.steps).toMatchObject({ minimum: 1, maximum: 50 });
  });
});

describe('epsilon generates', () => {
  it('a real PNG from the ZIP, with every effective value stored with the asset', async () => {
    const response = await generate({ prompt: 'watercolor fox in snow' });
    expect(response.status).toBe(200);
    const result = (await response.json()) as Result;
    const effective = {
      model: 'epsilon-diffusion-5-full',
      size: '832x1216',
      negativePrompt: '',
      sampler: 'k_euler_ancestral',
      noiseSchedule: 'karras',
      steps: 23,
      scale: 5,
      cfgRescale: 0,
      // None asked for: the seed the vendor reports in the PNG's Comment chunk (the simulator picks one).
      seed: expect.any(Number),
      ucPresetId: 'heavy',
      qualityPresetId: 'standard',
      autoSmea: false,
      decrisper: false,
      varietyPlus: false,
      straightAlpha: false,
    };
    expect(result).toMatchObject({
      provider: 'epsilon',
      model: 'epsilon-diffusion-5-full',
      images: [{ format: 'png', width: 832, height: 1216 }],
    });
    expect(result.settings).toEqual(effective);
    expect(result.images[0].settings).toEqual(effective);
    const entry = sim.simulator.lastRequest({ route: ROUTE });
    expect(entry?.credentialFingerprint).toBe(fingerprintSecret(sim.token));
    expect(entry?.body).toMatchObject({ input: 'watercolor fox in snow', model: 'epsilon-diffusion-5-full', action: 'generate' });
    expect(lastParameters()).toMatchObject({
      params_version: 3,
      width: 832,
      height: 1216,
      scale: 5,
      sampler: 'k_euler_ancestral',
      steps: 23,
      n_samples: 1,
      negative_prompt: '',
      deliberate_euler_ancestral_bug: false,
      prefer_brownian: true,
      v4_prompt: { caption: { base_caption: 'watercolor fox in snow', char_captions: [] }, use_coords: false, use_order: true },
    });
    expect(lastParameters()).not.toHaveProperty('seed');
    expect(lastParameters()).not.toHaveProperty('skip_cfg_above_sigma');
    // The file itself carries the settings (history reads them back).
    const history = (await (await rig.get('/api/history?provider=epsilon')).json()) as {
      items: { filename: string; settings: Record<string, unknown> }[];
    };
    expect(history.items.find((item) => item.filename === result.images[0].filename)?.settings).toEqual(effective);
  });

  it('sends every chosen control and the negative prompt under the vendor names', async () => {
    const options = {
      sampler: 'k_dpmpp_2m',
      noiseSchedule: 'exponential',
      steps: 28,
      scale: 6.5,
      cfgRescale: 0.2,
      seed: 12345,
      ucPresetId: 'light',
      qualityPresetId: 'none',
      autoSmea: true,
      decrisper: true,
      varietyPlus: true,
      straightAlpha: true,
    };
    const result = (await (await generate({ prompt: 'a fox', negativePrompt: 'lowres', size: '1024x1024', options })).json()) as Result;
    expect(result.settings).toEqual({ model: 'epsilon-diffusion-5-full', size: '1024x1024', negativePrompt: 'lowres', ...options });
    expect(lastParameters()).toMatchObject({
      sampler: 'k_dpmpp_2m',
      noise_schedule: 'exponential',
      steps: 28,
      scale: 6.5,
      cfg_rescale: 0.2,
      seed: 12345,
      ucPresetId: 'light',
      qualityPresetId: 'none',
      autoSmea: true,
      dynamic_thresholding: true,
      straight_alpha: true,
      skip_cfg_above_sigma: 1024 * 0.05766,
      negative_prompt: 'lowres',
      v4_negative_prompt: { caption: { base_caption: 'lowres', char_captions: [] }, legacy_uc: false },
    });
    expect(lastParameters()).not.toHaveProperty('prefer_brownian');
  });

  it('runs version 4.5 with the standard preset and no straight alpha, and says so', async () => {
    const result = (await (
      await generate({
        prompt: 'old model',
        model: 'epsilon-diffusion-4.5-full',
        options: { qualityPresetId: 'light', straightAlpha: true },
      })
    ).json()) as Result;
    expect(result.model).toBe('epsilon-diffusion-4.5-full');
    expect(result.settings).toMatchObject({ model: 'epsilon-diffusion-4-5-full', qualityPresetId: 'standard', straightAlpha: false });
    expect(sim.simulator.lastRequest({ route: ROUTE })?.body).toMatchObject({ model: 'epsilon-diffusion-4-5-full' });
  });

  it('takes an answer with status 201 as well as 200', async () => {
    expect((await generate({ prompt: 'created [sim:status-201]' })).status).toBe(200);
  });
});

describe('epsilon refuses before any upstream call', () => {
  it('out-of-set values and out-of-range numbers: a 400 naming the field and what it allows', async () => {
    const mark = lastRequestId(sim.simulator);
    const sampler = await expectError(await generate({ prompt: 'x', options: { sampler: 'nope' } }), 400, 'BAD_REQUEST');
    expect(sampler.error.details).toMatchObject({
      field: 'options.sampler',
      valid: ['k_euler', 'k_euler_ancestral', 'k_dpmpp_2s_ancestral', 'k_dpmpp_2m', 'k_dpmpp_sde', 'k_dpmpp_2m_sde'],
    });
    expect(sampler.error.message).toContain('options.sampler');
    const ranges: Array<[string, unknown, string]> = [
      ['steps', 51, 'from 1 to 50'],
      ['steps', 2.5, 'whole number'],
      ['scale', 0.5, 'from 1 to 10'],
      ['cfgRescale', 2, 'from 0 to 1'],
      ['seed', -1, 'from 0 to 4294967295'],
      ['noiseSchedule', 'linear', 'karras'],
      ['ucPresetId', 'medium', 'heavy'],
      ['qualityPresetId', 'ultra', 'standard'],
      ['autoSmea', 'yes', 'boolean'],
    ];
    for (const [field, value, says] of ranges) {
      const body = await expectError(await generate({ prompt: 'x', options: { [field]: value } }), 400, 'BAD_REQUEST');
      expect({ field: body.error.details?.field, says: body.error.message.includes(says) }).toEqual({
        field: `options.${field}`,
        says: true,
      });
    }
    const unknown = await expectError(await generate({ prompt: 'x', options: { cfg: 3 } }), 400, 'BAD_REQUEST');
    expect(unknown.error.details?.valid).toHaveLength(12);
    const size = await expectError(await generate({ prompt: 'x', size: '1040x1040' }), 400, 'BAD_REQUEST');
    expect(size.error.details).toMatchObject({ field: 'size', multipleOf: 64 });
    const negative = await expectError(await generate({ prompt: 'x', negativePrompt: 'n'.repeat(10_001) }), 400, 'BAD_REQUEST');
    expect(negative.error.details).toMatchObject({ field: 'negativePrompt', max: 10_000 });
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it('a reference, an edit, a mask and video, each with its own code', async () => {
    const mark = lastRequestId(sim.simulator);
    const image = await imageDataUrl('png');
    const reference = await expectError(await generate({ prompt: 'x', references: [image] }), 400, 'EPSILON_REF_UNSUPPORTED');
    expect(reference.error.details).toMatchObject({ lane: 'epsilon', max: 0, got: 1 });
    await expectError(await rig.post('/api/edit', { provider: 'epsilon', prompt: 'x', image }), 400, 'EPSILON_EDIT_UNSUPPORTED');
    await expectError(
      await rig.post('/api/edit', { provider: 'epsilon', prompt: 'x', image, mask: image }),
      400,
      'EPSILON_MASK_UNSUPPORTED',
    );
    const video = await rig.studio.request('/api/defaults', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ video: 'epsilon/epsilon-diffusion-5-full' }),
    });
    await expectError(video, 400, 'VIDEO_PROVIDER_UNSUPPORTED');
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });
});

describe('epsilon upstream refusals (contract §5)', () => {
  it('401, 402 (subscription required / usage exhausted after a subscription check), 429, 400, 409, 500', async () => {
    const unauthorized = await expectError(await generate({ prompt: 'x [sim:unauthorized]' }), 401, 'AUTH_API_KEY_INVALID');
    expect(unauthorized.error.details).toMatchObject({ upstreamStatus: 401, retryable: false });

    const required = await expectError(await generate({ prompt: 'x [sim:subscription-required]' }), 402, 'EPSILON_SUBSCRIPTION_REQUIRED');
    expect(required.error.details).toMatchObject({ upstreamStatus: 402, retryable: false });

    const mark = lastRequestId(sim.simulator);
    const exhausted = await expectError(await generate({ prompt: 'x [sim:usage-exhausted]' }), 402, 'EPSILON_USAGE_EXHAUSTED');
    expect(exhausted.error.details).toMatchObject({ upstreamStatus: 402, retryable: false });
    expect(requestsSince(sim.simulator, mark, EPSILON_ROUTES.subscription)).toHaveLength(1);
    // On 4.5 there is no charge meter: a 402 is a subscription matter, and nothing is checked.
    const older = lastRequestId(sim.simulator);
    await expectError(
      await generate({ prompt: 'x [sim:usage-exhausted]', model: 'epsilon-diffusion-4.5-curated' }),
      402,
      'EPSILON_SUBSCRIPTION_REQUIRED',
    );
    expect(requestsSince(sim.simulator, older, EPSILON_ROUTES.subscription)).toHaveLength(0);
    // That refusal left the simulated account spent for the next read, which the lane skipped: read it (back to active).
    await (await fetch(`${sim.url}/user/subscription`, { headers: { authorization: `Bearer ${sim.token}` } })).arrayBuffer();

    const limited = await generate({ prompt: 'x [sim:ratelimit]' });
    const rate = await expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(rate.error.details).toMatchObject({ retryable: true, upstreamMessage: 'Concurrent generation is locked' });

    const bad = await expectError(await generate({ prompt: 'x [sim:bad-request]' }), 400, 'EPSILON_BAD_REQUEST');
    expect(bad.error.details?.upstreamMessage).toContain('Invalid parameters');
    const conflict = await expectError(await generate({ prompt: 'x [sim:conflict]' }), 409, 'EPSILON_REQUEST_CONFLICT');
    expect(conflict.error.details?.upstreamMessage).toBe('A generation is already in progress for this account.');
    const server = await expectError(await generate({ prompt: 'x [sim:server-error]' }), 502, 'UPSTREAM_FAILED');
    expect(server.error.details).toMatchObject({ upstreamStatus: 500, upstreamMessage: 'Internal Server Error', retryable: true });
  });
});

describe('epsilon ZIP guards', () => {
  it('each defect of the answer has its code, and none leaves a file', async () => {
    const cases: Array<[string, number, string, string]> = [
      ['json-body', 502, 'EPSILON_RESPONSE_NOT_ZIP', 'not_zip'],
      ['empty-body', 502, 'EPSILON_EMPTY_IMAGE', 'empty'],
      ['zip-encrypted', 502, 'EPSILON_ZIP_UNSUPPORTED', 'encrypted'],
      ['zip-descriptor', 502, 'EPSILON_ZIP_UNSUPPORTED', 'data_descriptor'],
      ['zip64', 502, 'EPSILON_ZIP_UNSUPPORTED', 'zip64'],
      ['zip-method', 502, 'EPSILON_ZIP_UNSUPPORTED', 'method'],
      ['zip-too-large', 502, 'EPSILON_ZIP_TOO_LARGE', 'too_large'],
      ['zip-bomb', 502, 'EPSILON_ZIP_INVALID', 'size_mismatch'],
      ['zip-truncated', 502, 'EPSILON_ZIP_INVALID', 'truncated'],
      ['zip-not-png', 502, 'EPSILON_IMAGE_INVALID', 'not_png'],
      ['zip-two-entries', 502, 'EPSILON_ZIP_INVALID', 'entries'],
      ['zip-crc', 502, 'EPSILON_ZIP_INVALID', 'crc'],
    ];
    const before = generatedFiles(rig.studio, { imagesOnly: true });
    const rows = () => embeddedDatabase(rig.studio.ctx).prepare('SELECT count(*) AS n FROM assets').get();
    const rowsBefore = rows();
    for (const [trigger, status, code, reason] of cases) {
      const response = await generate({ prompt: `guarded [sim:${trigger}]` });
      const body = (await response.json()) as { error: { code: string; message: string; details: Record<string, unknown> } };
      expect({ trigger, status: response.status, code: body.error.code, reason: body.error.details.reason }).toEqual({
        trigger,
        status,
        code,
        reason,
      });
    }
    expect(generatedFiles(rig.studio, { imagesOnly: true })).toEqual(before);
    expect(rows()).toEqual(rowsBefore);
  });

  it('a JSON body is reported as JSON with what it said; a bomb is stopped at its declared size', async () => {
    const json = await expectError(await generate({ prompt: 'x [sim:json-body]' }), 502, 'EPSILON_RESPONSE_NOT_ZIP');
    expect(json.error.message).toContain('JSON instead of a ZIP archive: Image generation queued');
    expect(json.error.details).toMatchObject({ bodyType: 'json' });
    const bomb = await expectError(await generate({ prompt: 'x [sim:zip-bomb]' }), 502, 'EPSILON_ZIP_INVALID');
    expect(bomb.error.message).toMatch(/inflates past its declared \d+ bytes|does not inflate to what it declares/);
    const large = await expectError(await generate({ prompt: 'x [sim:zip-too-large]' }), 502, 'EPSILON_ZIP_TOO_LARGE');
    expect(large.error.details).toMatchObject({ maxBytes: 50 * 1024 * 1024, declaredBytes: 51 * 1024 * 1024 });
  });
});

describe('epsilon transport', () => {
  it('no token, a refused token (never echoed), the time budget, a body over the limit, nothing listening', async () => {
    const bare = await startLaneRig({ upstreams: { epsilon: sim.url } });
    const wrong = await startLaneRig({ upstreams: { epsilon: sim.url }, env: { EPSILON_API_KEY: 'pst-wrongtoken0123456789abcdef' } });
    const slow = await startLaneRig({
      upstreams: { epsilon: sim.url },
      env: { EPSILON_API_KEY: sim.token, SVC_EPSILON_TIMEOUT_MS: '300' },
    });
    const nowhere = await startLaneRig({ upstreams: { epsilon: 'http://127.0.0.1:9' }, env: { EPSILON_API_KEY: sim.token } });
    try {
      const mark = lastRequestId(sim.simulator);
      const missing = await expectError(await generate({ prompt: 'x' }, bare), 401, 'API_KEY_REQUIRED');
      expect(missing.error.details).toMatchObject({ env: 'EPSILON_API_KEY' });
      expect(requestsSince(sim.simulator, mark)).toEqual([]);
      const refused = await expectError(await generate({ prompt: 'x' }, wrong), 401, 'AUTH_API_KEY_INVALID');
      expect(JSON.stringify(refused)).not.toContain('wrongtoken');
      await expectError(await generate({ prompt: 'x [sim:slow=5000]' }, slow), 504, 'UPSTREAM_TIMEOUT');
      sim.simulator.fault(ROUTE, { headers: { 'content-length': String(200 * 1024 * 1024) } });
      await expectError(await generate({ prompt: 'x' }), 502, 'UPSTREAM_PROTOCOL_ERROR');
      await expectError(await generate({ prompt: 'x' }, nowhere), 502, 'NETWORK_FAILED');
    } finally {
      await Promise.all([bare.stop(), wrong.stop(), slow.stop(), nowhere.stop()]);
    }
  });
});
