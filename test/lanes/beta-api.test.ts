import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BETA_ROUTES, startBetaSimulator, type BetaSimulator } from '../../src/sim/beta/simulator.js';
import { fingerprintSecret } from '../../src/sim/harness.js';
import {
  expectError,
  expectImage,
  generatedFiles,
  imageDataUrl,
  lastRequestId,
  requestsAfter,
  startBetaRig,
  type BetaRig,
} from './beta-api-rig.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// The beta-api lane in its API-key mode, over real HTTP against the
// `:generateContent` simulator: the pixel table, the vendor enums, the cost in
// the result, the refused controls, and every code the lane can answer.

let sim: BetaSimulator;
let rig: BetaRig;

beforeAll(async () => {
  sim = await startBetaSimulator();
  rig = await startBetaRig(sim);
});

afterAll(async () => {
  await rig?.stop();
  await sim?.close();
});

/** The body the simulator received for the last generateContent call after `mark`. */
function sentBody(mark: number): {
  contents: { role: string; parts: Record<string, unknown>[] }[];
  generationConfig: Record<string, unknown>;
} {
  const [entry] = requestsAfter(sim, mark, BETA_ROUTES.keyGenerate);
  expect(entry).toBeDefined();
  return entry.body as ReturnType<typeof sentBody>;
}

describe('beta-api (API key): sizes, enums and cost', () => {
  it('16:9 at 2K is a 2752x1536 image, sent as the vendor enums, costing 0.101', async () => {
    const mark = lastRequestId(sim);
    const result = await expectImage(
      await rig.generate({ prompt: 'a lighthouse at dusk', options: { aspectRatio: '16:9', resolution: '2K' } }),
    );
    expect(result).toMatchObject({ provider: 'beta-api', model: 'nano-fruit-2' });
    expect(result.images[0]).toMatchObject({ width: 2752, height: 1536, format: 'png' });
    expect(result.settings).toEqual({
      mode: 'apikey',
      upstreamModel: 'beta-3.1-flash-image',
      aspectRatio: '16:9',
      resolution: '2K',
      size: '2752x1536',
      imageSize: '2K',
      estimatedCostUsd: 0.101,
      references: 0,
      action: 'generate',
    });
    // The history record keeps what ran, the cost included.
    expect(result.images[0].settings).toMatchObject({ size: '2752x1536', estimatedCostUsd: 0.101 });
    expect(result.usage).toMatchObject({ outputTokens: expect.any(Number), totalTokens: expect.any(Number) });

    const [call] = requestsAfter(sim, mark, BETA_ROUTES.keyGenerate);
    expect(call.path).toBe('/v1beta/models/beta-3.1-flash-image:generateContent');
    expect(call.credentialFingerprint).toBe(fingerprintSecret(sim.apiKey));
    expect(call.headers['x-goog-api-key']).not.toContain(sim.apiKey);
    expect(sentBody(mark)).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a lighthouse at dusk' }] }],
      generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '16:9', imageSize: '2K' } },
    });
  });

  it('every aspect ratio maps to its documented pixels (512px tier, sent as "512")', async () => {
    const documented: Record<string, [number, number]> = {
      '1:1': [512, 512],
      '2:3': [424, 632],
      '3:2': [632, 424],
      '3:4': [448, 600],
      '4:3': [600, 448],
      '4:5': [464, 576],
      '5:4': [576, 464],
      '9:16': [384, 688],
      '16:9': [688, 384],
      '21:9': [792, 336],
    };
    for (const [aspectRatio, [width, height]] of Object.entries(documented)) {
      const mark = lastRequestId(sim);
      const result = await expectImage(
        await rig.generate({ prompt: `a kite ${aspectRatio}`, options: { aspectRatio, resolution: '512px' } }),
      );
      expect({ aspectRatio, width: result.images[0].width, height: result.images[0].height }).toEqual({ aspectRatio, width, height });
      expect(result.settings).toMatchObject({ size: `${width}x${height}`, imageSize: '512', estimatedCostUsd: 0.045 });
      expect(sentBody(mark).generationConfig.imageConfig).toEqual({ aspectRatio, imageSize: '512' });
    }
  });

  it('without options: square at 1K (0.067); nano-fruit-pro runs beta-3-pro-image and renders 512px at 1K', async () => {
    const plain = await expectImage(await rig.generate({ prompt: 'a plain square' }));
    expect(plain.images[0]).toMatchObject({ width: 1024, height: 1024 });
    expect(plain.settings).toMatchObject({ aspectRatio: '1:1', resolution: '1K', estimatedCostUsd: 0.067 });

    const mark = lastRequestId(sim);
    const pro = await expectImage(
      await rig.generate({ prompt: 'a pro tiny one', model: 'nano-fruit-pro', options: { aspectRatio: '3:4', resolution: '512px' } }),
    );
    expect(pro.model).toBe('nano-fruit-pro');
    expect(pro.images[0]).toMatchObject({ width: 896, height: 1200 });
    expect(pro.settings).toMatchObject({
      upstreamModel: 'beta-3-pro-image',
      resolution: '1K',
      requestedResolution: '512px',
      imageSize: '1K',
      estimatedCostUsd: 0.134,
    });
    expect(requestsAfter(sim, mark, BETA_ROUTES.keyGenerate)[0].path).toBe('/v1beta/models/beta-3-pro-image:generateContent');
  });

  it("takes the final image, not a thought's draft", async () => {
    const result = await expectImage(await rig.generate({ prompt: 'a thinker [sim:thoughts]', options: { aspectRatio: '4:3' } }));
    expect(result.images[0]).toMatchObject({ width: 1200, height: 896 });
  });

  it('sends references (and an edited image first) inline, as the contract allows', async () => {
    const [png, jpeg] = [await imageDataUrl('png'), await imageDataUrl('jpeg')];
    let mark = lastRequestId(sim);
    const result = await expectImage(await rig.generate({ prompt: 'mix these', references: [png, jpeg] }));
    expect(result.settings).toMatchObject({ references: 2, action: 'generate' });
    const parts = sentBody(mark).contents[0].parts;
    expect(parts.map((part) => Object.keys(part)[0])).toEqual(['text', 'inlineData', 'inlineData']);
    expect(parts.slice(1).map((part) => (part.inlineData as { mimeType: string }).mimeType)).toEqual(['image/png', 'image/jpeg']);

    mark = lastRequestId(sim);
    const edited = await expectImage(await rig.generate({ prompt: 'make it red', image: jpeg, references: [png] }, '/api/edit'));
    expect(edited.settings).toMatchObject({ action: 'edit', references: 1 });
    const editParts = sentBody(mark).contents[0].parts;
    expect(editParts.slice(1).map((part) => (part.inlineData as { mimeType: string }).mimeType)).toEqual(['image/jpeg', 'image/png']);
  });

  it('/api/capabilities serves the cost table, the controls and the refusals', async () => {
    const body = (await (await rig.studio.request('/api/capabilities')).json()) as {
      values: {
        betaCost: Record<string, { perImageUsd: Record<string, number> }>;
        betaAspectRatios: string[];
        betaResolutionTiers: string[];
      };
      providers: {
        id: string;
        controls?: string[];
        operations?: { multimode: boolean };
        options?: { properties: Record<string, unknown> };
      }[];
    };
    expect(body.values.betaCost['nano-fruit-2'].perImageUsd).toEqual({ '512px': 0.045, '1K': 0.067, '2K': 0.101, '4K': 0.151 });
    expect(body.values.betaCost['nano-fruit-pro'].perImageUsd).toEqual({ '512px': 0.134, '1K': 0.134, '2K': 0.134, '4K': 0.24 });
    expect(body.values.betaAspectRatios).toHaveLength(10);
    expect(body.values.betaResolutionTiers).toEqual(['512px', '1K', '2K', '4K']);
    const lane = body.providers.find((provider) => provider.id === 'beta-api');
    expect(lane).toMatchObject({ controls: [], operations: { multimode: false } });
    expect(Object.keys(lane?.options?.properties ?? {})).toEqual(['aspectRatio', 'resolution']);
  });
});

describe('beta-api (API key): refusals before any upstream call', () => {
  it('quality, format and moderation are refused naming the control; a batch naming multimode', async () => {
    const mark = lastRequestId(sim);
    // Spec: no quality, format, moderation or multimode; size, where it is silent, is dropped with a warning (test/studio/spec-client.test.ts).
    for (const [field, value] of [
      ['quality', 'high'],
      ['format', 'jpeg'],
      ['moderation', 'low'],
    ] as const) {
      const body = await expectError(await rig.generate({ prompt: 'x', [field]: value }), 400, 'LANE_UNSUPPORTED');
      expect(body.error.message).toContain(field);
      expect(body.error.details).toMatchObject({ lane: 'beta-api', field });
    }
    const batch = await expectError(await rig.generate({ prompt: 'x', n: 2 }, '/api/generate/multimode'), 400, 'LANE_UNSUPPORTED');
    expect(batch.error.details).toMatchObject({ lane: 'beta-api', field: 'multimode' });
    expect(requestsAfter(sim, mark)).toEqual([]);
  });

  it('options outside the lists are refused with the valid values', async () => {
    const ratio = await expectError(await rig.generate({ prompt: 'x', options: { aspectRatio: '7:3' } }), 400, 'BAD_REQUEST');
    expect(ratio.error.details).toMatchObject({ field: 'options.aspectRatio', valid: expect.arrayContaining(['16:9', '21:9']) });
    const tier = await expectError(await rig.generate({ prompt: 'x', options: { resolution: '8K' } }), 400, 'BAD_REQUEST');
    expect(tier.error.details).toMatchObject({ field: 'options.resolution', valid: ['512px', '1K', '2K', '4K'] });
    const unknown = await expectError(await rig.generate({ prompt: 'x', options: { seed: 3 } }), 400, 'BAD_REQUEST');
    expect(unknown.error.details).toMatchObject({ unknown: ['seed'] });
  });

  it("INVALID_BETA_API_IMAGE_MODEL: any model but nano-fruit-2 and nano-fruit-pro, another lane's included", async () => {
    for (const model of ['nano-fruit-3', 'lang-6-luna']) {
      const body = await expectError(await rig.generate({ prompt: 'x', model }), 400, 'INVALID_BETA_API_IMAGE_MODEL');
      expect(body.error.details).toMatchObject({ lane: 'beta-api', model, valid: ['nano-fruit-2', 'nano-fruit-pro'] });
    }
  });

  it('BETA_API_KEY_MISSING: no key and no service account', async () => {
    const bare = await startBetaRig(sim, { key: false });
    try {
      const body = await expectError(await bare.generate({ prompt: 'x' }), 401, 'BETA_API_KEY_MISSING');
      expect(body.error.message).toContain('CLOUD_SERVICE_ACCOUNT_JSON');
      const providers = (await (await bare.studio.request('/api/providers')).json()) as { providers: { id: string; state: string }[] };
      expect(providers.providers.find((lane) => lane.id === 'beta-api')?.state).toBe('needs_credential');
    } finally {
      await bare.stop();
    }
  });
});

describe('beta-api (API key): upstream answers and their codes', () => {
  it('BETA_API_RATE_LIMITED: RetryInfo becomes Retry-After; a daily quota has none; a Retry-After header is passed on', async () => {
    const limited = await rig.generate({ prompt: 'busy [sim:ratelimit=7]' });
    const body = await expectError(limited, 429, 'BETA_API_RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(body.error.details).toMatchObject({ upstreamStatus: 429, upstreamCode: 'RESOURCE_EXHAUSTED', retryAfterSeconds: 7 });

    const daily = await rig.generate({ prompt: 'busy all day [sim:ratelimit-daily]' });
    const dailyBody = await expectError(daily, 429, 'BETA_API_RATE_LIMITED');
    expect(daily.headers.get('retry-after')).toBeNull();
    expect(dailyBody.error.message).toContain('daily');

    sim.simulator.fault(BETA_ROUTES.keyGenerate, { status: 429, headers: { 'retry-after': '12' } });
    const withHeader = await rig.generate({ prompt: 'busy proxy' });
    await expectError(withHeader, 429, 'BETA_API_RATE_LIMITED');
    expect(withHeader.headers.get('retry-after')).toBe('12');
  });

  it('BETA_API_SAFETY_BLOCKED: a blocked prompt and a filtered image', async () => {
    const prompt = await expectError(await rig.generate({ prompt: 'forbidden [sim:block-prompt]' }), 422, 'BETA_API_SAFETY_BLOCKED');
    expect(prompt.error.details).toMatchObject({ blockReason: 'PROHIBITED_CONTENT', stage: 'prompt' });
    const output = await expectError(await rig.generate({ prompt: 'filtered [sim:block-image]' }), 422, 'BETA_API_SAFETY_BLOCKED');
    expect(output.error.details).toMatchObject({ finishReason: 'IMAGE_SAFETY', stage: 'output', finishMessage: expect.any(String) });
  });

  it('BETA_API_NO_IMAGE: finish reason NO_IMAGE, and a refusal in words', async () => {
    const none = await expectError(await rig.generate({ prompt: 'nothing [sim:no-image]' }), 502, 'BETA_API_NO_IMAGE');
    expect(none.error.details).toMatchObject({ finishReason: 'NO_IMAGE' });
    const words = await expectError(await rig.generate({ prompt: 'just talk [sim:text-only]' }), 502, 'BETA_API_NO_IMAGE');
    expect(words.error.details).toMatchObject({ finishReason: 'STOP', upstreamText: expect.stringContaining("can't") });
  });

  it('GENERATION_TIMEOUT: the budget (SVC_BETA_API_TIMEOUT_MS) aborts the call; an upstream 504 too', async () => {
    const impatient = await startBetaRig(sim, { env: { SVC_BETA_API_TIMEOUT_MS: '400' } });
    try {
      const body = await expectError(await impatient.generate({ prompt: 'stuck [sim:slow=8000]' }), 504, 'GENERATION_TIMEOUT');
      expect(body.error.message).toContain('0.4 s');
      const upstream = await sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('stuck'));
      expect(upstream.outcome).toBe('client-aborted');
    } finally {
      await impatient.stop();
    }
    await expectError(await rig.generate({ prompt: 'too long [sim:deadline]' }), 504, 'GENERATION_TIMEOUT');
  });

  it('AUTH_API_KEY_INVALID: a refused key, never echoed', async () => {
    const wrongKey = 'AIza-wrong-key-0123456789abcdef';
    const wrong = await startBetaRig(sim, { key: wrongKey });
    try {
      const body = await expectError(await wrong.generate({ prompt: 'x' }), 401, 'AUTH_API_KEY_INVALID');
      expect(body.error.details).toMatchObject({ upstreamStatus: 400, upstreamType: 'API_KEY_INVALID' });
      expect(JSON.stringify(body)).not.toContain(wrongKey);
    } finally {
      await wrong.stop();
    }
  });

  it('IMAGE_MODEL_UNSUPPORTED (404), UPSTREAM_FAILED (500, 503), UPSTREAM_PROTOCOL_ERROR, NETWORK_FAILED', async () => {
    sim.simulator.fault(BETA_ROUTES.keyGenerate, { status: 404 });
    await expectError(await rig.generate({ prompt: 'gone' }), 400, 'IMAGE_MODEL_UNSUPPORTED');
    await expectError(await rig.generate({ prompt: 'boom [sim:server-error]' }), 502, 'UPSTREAM_FAILED');
    await expectError(await rig.generate({ prompt: 'busy [sim:overloaded]' }), 502, 'UPSTREAM_FAILED');
    await expectError(await rig.generate({ prompt: 'garbled [sim:malformed]' }), 502, 'UPSTREAM_PROTOCOL_ERROR');
    sim.simulator.fault(BETA_ROUTES.keyGenerate, { disconnectAfterBytes: 0 });
    await expectError(await rig.generate({ prompt: 'reset' }), 502, 'NETWORK_FAILED');
  });

  it('REFERENCE_TOO_MANY past 14 input images, MASK_UNSUPPORTED for a mask: both before any call', async () => {
    const mark = lastRequestId(sim);
    const png = await imageDataUrl('png', 16, 16);
    const body = await expectError(await rig.generate({ prompt: 'x', references: Array(15).fill(png) }), 400, 'REFERENCE_TOO_MANY');
    expect(body.error.details).toMatchObject({ max: 14 });
    await expectError(await rig.generate({ prompt: 'x', image: png, mask: png }, '/api/edit'), 400, 'MASK_UNSUPPORTED');
    expect(requestsAfter(sim, mark)).toEqual([]);
  });

  it('JOB_CANCELLED: a cancel aborts the upstream call', async () => {
    const accepted = await rig.generate({ prompt: 'cancel me [sim:slow=8000]', async: true, requestId: 'beta-cancel' });
    expect(accepted.status).toBe(202);
    const open = () =>
      sim.simulator
        .requests({ route: BETA_ROUTES.keyGenerate })
        .find((entry) => JSON.stringify(entry.body).includes('cancel me') && entry.outcome === 'open');
    for (let tries = 0; tries < 400 && !open(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(open()).toBeDefined();
    expect((await rig.studio.request('/api/inflight/beta-cancel', { method: 'DELETE' })).status).toBe(200);
    const upstream = await sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('cancel me'));
    expect(upstream.outcome).toBe('client-aborted');
    const job = (await (await rig.studio.request('/api/jobs/beta-cancel')).json()) as { state: string; error: { code: string } };
    expect(job).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
  });

  it('no failure left a file in history', () => {
    // Every image above is one asset; failures added none, and no half-written file. (Thumbnails are
    // made off the request path, so they are left out.)
    const assets = embeddedDatabase(rig.studio.ctx).prepare('SELECT count(*) AS n FROM assets').get() as { n: number };
    const images = generatedFiles(rig.studio).filter((file) => !file.includes('.thumbs'));
    expect(images).toHaveLength(assets.n);
    expect(images.some((file) => file.endsWith('.tmp'))).toBe(false);
  });
});
