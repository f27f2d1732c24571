import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeltaSimulator, type DeltaSimulator } from '../../src/sim/delta/index.js';
import { fingerprintSecret } from '../../src/sim/harness.js';
import {
  expectError,
  generatedFiles,
  imageDataUrl,
  lastRequestId,
  requestsSince,
  startLaneRig,
  waitFor,
  type LaneRig,
} from './gamma-delta-epsilon-rig.js';

// The delta lane end to end: a studio on an ephemeral port, its delta lane
// pointed at the delta simulator over HTTP. Every code the lane answers is
// triggered here.

const ROUTE = 'POST /v1/image_generation';

let sim: DeltaSimulator;
let rig: LaneRig;

beforeAll(async () => {
  sim = await startDeltaSimulator();
  rig = await startLaneRig({ upstreams: { delta: sim.url }, env: { DELTA_API_KEY: sim.apiKey } });
});
afterAll(async () => {
  await rig?.stop();
  await sim?.close();
});

const generate = (body: Record<string, unknown>, on: LaneRig = rig) => on.post('/api/generate', { provider: 'delta', ...body });

/** The body the simulator received last. */
const lastBody = () => sim.simulator.lastRequest({ route: ROUTE })?.body as Record<string, unknown>;

interface Result {
  provider: string;
  model: string;
  images: { filename: string; format: string; width: number; height: number }[];
  settings: Record<string, unknown>;
}

describe('delta in discovery', () => {
  // First, before any failure: a rate limit rests the lane (cooling_down) for a while.
  it('lists its models, controls, options, limit and codes from its module', async () => {
    const body = (await (await rig.get('/api/capabilities')).json()) as { providers: Array<Record<string, unknown>> };
    const delta = body.providers.find((provider) => provider.id === 'delta');
    expect(delta).toMatchObject({
      built: true,
      operations: { generate: true, edit: false, mask: false },
      controls: ['size'],
      maxInputImages: 1,
      defaultModel: 'image-01',
      models: ['image-01', 'image-01-live'],
      timeoutVariable: 'SVC_DELTA_TIMEOUT_MS',
      codes: { invalidModel: 'INVALID_DELTA_IMAGE_MODEL', tooManyReferences: 'DELTA_REF_TOO_MANY' },
    });
    expect(Object.keys((delta?.options as { properties: object }).properties)).toEqual(['seed', 'promptOptimizer']);
    const providers = (await (await rig.get('/api/providers')).json()) as {
      providers: Array<{ id: string; state: string; upstream: string }>;
    };
    expect(providers.providers.find((provider) => provider.id === 'delta')).toMatchObject({ state: 'ready', upstream: sim.url });
  });
});

describe('delta generates', () => {
  it('a real image on image-01 by default: base64 asked, 1:1, the key sent as a bearer and never logged', async () => {
    const response = await generate({ prompt: 'a teapot on a wooden table' });
    expect(response.status).toBe(200);
    const result = (await response.json()) as Result;
    expect(result).toMatchObject({ provider: 'delta', model: 'image-01', images: [{ format: 'jpeg', width: 1024, height: 1024 }] });
    expect(result.settings).toMatchObject({
      model: 'image-01',
      size: '1024x1024',
      aspectRatio: '1:1',
      promptOptimizer: false,
      references: 0,
      responseFormat: 'base64',
    });
    const entry = sim.simulator.lastRequest({ route: ROUTE });
    expect(entry?.body).toEqual({
      model: 'image-01',
      prompt: 'a teapot on a wooden table',
      aspect_ratio: '1:1',
      response_format: 'base64',
      n: 1,
      prompt_optimizer: false,
      aigc_watermark: false,
    });
    expect(entry?.credentialFingerprint).toBe(fingerprintSecret(sim.apiKey));
    // The asset is in history with its settings.
    const history = (await (await rig.get('/api/history?provider=delta')).json()) as { items: { filename: string }[] };
    expect(history.items.map((item) => item.filename)).toContain(result.images[0].filename);
  });

  it('maps sizes through the one table: a ratio when the size is one, free width/height on image-01 only', async () => {
    const live = (await (await generate({ prompt: 'wide', model: 'image-01-live', size: '1280x720' })).json()) as Result;
    expect(live).toMatchObject({
      model: 'image-01-live',
      images: [{ width: 1280, height: 720 }],
      settings: { aspectRatio: '16:9', size: '1280x720' },
    });
    expect(lastBody()).toMatchObject({ model: 'image-01-live', aspect_ratio: '16:9' });

    const free = (await (await generate({ prompt: 'free', size: '1536x1024' })).json()) as Result;
    expect(free).toMatchObject({ images: [{ width: 1536, height: 1024 }], settings: { width: 1536, height: 1024 } });
    expect(lastBody()).toMatchObject({ width: 1536, height: 1024 });
    expect(lastBody()).not.toHaveProperty('aspect_ratio');

    const mark = lastRequestId(sim.simulator);
    for (const [model, size] of [
      ['image-01-live', '1536x1024'],
      ['image-01-live', '1344x576'],
      ['image-01', '2560x1440'],
    ]) {
      const body = await expectError(await generate({ prompt: 'no', model, size }), 400, 'BAD_REQUEST');
      expect(body.error.details).toMatchObject({ field: 'size', model });
      expect(body.error.details?.valid).toContain('1024x1024');
    }
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it('sends its own options (seed, promptOptimizer) and refuses bad ones naming the field', async () => {
    const result = (await (await generate({ prompt: 'seeded', options: { seed: 42, promptOptimizer: true } })).json()) as Result;
    expect(result.settings).toMatchObject({ seed: 42, promptOptimizer: true });
    expect(lastBody()).toMatchObject({ seed: 42, prompt_optimizer: true });
    const bad = await expectError(await generate({ prompt: 'x', options: { seed: -1 } }), 400, 'BAD_REQUEST');
    expect(bad.error.details).toMatchObject({ field: 'options.seed' });
    const unknown = await expectError(await generate({ prompt: 'x', options: { style: 'manga' } }), 400, 'BAD_REQUEST');
    expect(unknown.error.details).toMatchObject({ valid: ['seed', 'promptOptimizer'] });
  });

  it('takes one subject reference (a JPEG or PNG data URL); two are refused before any upstream call', async () => {
    const reference = await imageDataUrl('jpeg');
    const one = (await (await generate({ prompt: 'this person as a knight', references: [reference] })).json()) as Result;
    expect(one.settings).toMatchObject({ references: 1 });
    const sent = lastBody().subject_reference as { type: string; image_file: string }[];
    expect(sent).toHaveLength(1);
    expect(sent[0].type).toBe('character');
    expect(sent[0].image_file.startsWith('data:image/jpeg;base64,')).toBe(true);

    const mark = lastRequestId(sim.simulator);
    const two = await expectError(await generate({ prompt: 'two', references: [reference, reference] }), 400, 'DELTA_REF_TOO_MANY');
    expect(two.error.details).toMatchObject({ lane: 'delta', max: 1, got: 2 });
    const webp = await expectError(
      await generate({ prompt: 'webp', references: [await imageDataUrl('webp')] }),
      415,
      'REFERENCE_TYPE_UNSUPPORTED',
    );
    expect(webp.error.details).toMatchObject({ valid: ['image/jpeg', 'image/png'] });
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it('refuses what it cannot do before any upstream call: other models, edits, long prompts', async () => {
    const mark = lastRequestId(sim.simulator);
    const model = await expectError(await generate({ prompt: 'x', model: 'image-02' }), 400, 'INVALID_DELTA_IMAGE_MODEL');
    expect(model.error.details?.valid).toEqual(['image-01', 'image-01-live']);
    await expectError(
      await rig.post('/api/edit', { provider: 'delta', prompt: 'x', image: await imageDataUrl('png') }),
      400,
      'LANE_UNSUPPORTED',
    );
    const long = await expectError(await generate({ prompt: 'x'.repeat(1501) }), 400, 'BAD_REQUEST');
    expect(long.error.details).toMatchObject({ field: 'prompt', max: 1500 });
    // A lane-only control stays refused; a common one delta lacks (quality) is dropped with a warning (test/studio/spec-client.test.ts).
    await expectError(await generate({ prompt: 'x', negativePrompt: 'blur' }), 400, 'LANE_UNSUPPORTED');
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it('reads every success shape clients have met: data URIs, a bare string, numeric counts', async () => {
    for (const trigger of ['data-uri', 'bare-string', 'count-numbers']) {
      const response = await generate({ prompt: `shape [sim:${trigger}]` });
      expect({ trigger, status: response.status }).toEqual({ trigger, status: 200 });
      expect(((await response.json()) as Result).images).toHaveLength(1);
    }
  });
});

describe('delta base_resp codes', () => {
  it('an HTTP 200 with status_code 1008 is a non-retryable DELTA_INSUFFICIENT_BALANCE', async () => {
    const body = await expectError(await generate({ prompt: 'pay me [sim:code=1008]' }), 402, 'DELTA_INSUFFICIENT_BALANCE');
    expect(body.error.details).toMatchObject({ lane: 'delta', upstreamCode: '1008', retryable: false });
    expect(sim.simulator.lastRequest({ route: ROUTE })?.status).toBe(200);
  });

  it('maps every status_code of the contract to a clear code, with retryability and back-off advice', async () => {
    const table: Array<[number, number, string, boolean, string | null]> = [
      [1000, 502, 'UPSTREAM_FAILED', true, null],
      [1001, 504, 'UPSTREAM_TIMEOUT', true, null],
      [1002, 429, 'RATE_LIMITED', true, '10'],
      [1004, 401, 'AUTH_API_KEY_INVALID', false, null],
      [1024, 502, 'UPSTREAM_FAILED', true, null],
      [1026, 422, 'SAFETY_REFUSAL', false, null],
      [1027, 422, 'MODERATION_REFUSED', false, null],
      [1033, 502, 'UPSTREAM_FAILED', true, null],
      [1039, 429, 'RATE_LIMITED', true, '60'],
      [2013, 400, 'DELTA_INVALID_PARAMETERS', false, null],
      [2038, 403, 'DELTA_ACCOUNT_VERIFICATION_REQUIRED', false, null],
      [2049, 401, 'AUTH_API_KEY_INVALID', false, null],
      [4242, 502, 'UPSTREAM_FAILED', false, null],
    ];
    for (const [statusCode, status, code, retryable, retryAfter] of table) {
      const response = await generate({ prompt: `code [sim:code=${statusCode}]` });
      const body = (await response.json()) as { error: { code: string; details: Record<string, unknown> } };
      expect({
        statusCode,
        status: response.status,
        code: body.error.code,
        retryable: body.error.details.retryable,
        retryAfter: response.headers.get('retry-after'),
      }).toEqual({
        statusCode,
        status,
        code,
        retryable,
        retryAfter,
      });
      expect(body.error.details.upstreamCode).toBe(String(statusCode));
    }
  });

  it('silent moderation (success without images) is DELTA_NO_IMAGE, saying how many were filtered', async () => {
    await expectError(await generate({ prompt: 'nothing [sim:no-image]' }), 502, 'DELTA_NO_IMAGE');
    const filtered = await expectError(await generate({ prompt: 'filtered [sim:filtered]' }), 502, 'DELTA_NO_IMAGE');
    expect(filtered.error.details).toMatchObject({ failedCount: 1, retryable: false });
  });
});

describe('delta transport failures', () => {
  it('HTTP errors carrying an envelope or none, and bodies off the protocol', async () => {
    sim.simulator.fault(ROUTE, { status: 500 });
    const server = await expectError(await generate({ prompt: 'x' }), 502, 'UPSTREAM_FAILED');
    expect(server.error.details).toMatchObject({ upstreamStatus: 500, upstreamCode: '1024', retryable: true });
    sim.simulator.fault(ROUTE, { status: 429 });
    await expectError(await generate({ prompt: 'x' }), 429, 'RATE_LIMITED');
    sim.simulator.fault(ROUTE, { status: 503, body: 'upstream connect error' });
    const text = await expectError(await generate({ prompt: 'x' }), 502, 'UPSTREAM_FAILED');
    expect(text.error.details).toMatchObject({ upstreamStatus: 503, upstreamMessage: 'upstream connect error' });
    sim.simulator.fault(ROUTE, { status: 403, body: 'forbidden' });
    await expectError(await generate({ prompt: 'x' }), 401, 'AUTH_API_KEY_INVALID');
    sim.simulator.fault(ROUTE, { malformed: true });
    await expectError(await generate({ prompt: 'x' }), 502, 'UPSTREAM_PROTOCOL_ERROR');
    sim.simulator.fault(ROUTE, { status: 200, body: { data: { image_base64: [] } } });
    await expectError(await generate({ prompt: 'x' }), 502, 'UPSTREAM_PROTOCOL_ERROR');
    sim.simulator.fault(ROUTE, { disconnectAfterBytes: 0 });
    await expectError(await generate({ prompt: 'x' }), 502, 'NETWORK_FAILED');
  });

  it('no key, a refused key (never echoed), the time budget, cancel', async () => {
    const bare = await startLaneRig({ upstreams: { delta: sim.url } });
    const wrong = await startLaneRig({ upstreams: { delta: sim.url }, env: { DELTA_API_KEY: 'sk-delta-wrong-0123456789abcdef' } });
    const slow = await startLaneRig({ upstreams: { delta: sim.url }, env: { DELTA_API_KEY: sim.apiKey, SVC_DELTA_TIMEOUT_MS: '300' } });
    try {
      const mark = lastRequestId(sim.simulator);
      const missing = await expectError(await generate({ prompt: 'x' }, bare), 401, 'API_KEY_REQUIRED');
      expect(missing.error.details).toMatchObject({ env: 'DELTA_API_KEY' });
      expect(requestsSince(sim.simulator, mark)).toEqual([]);

      const refused = await expectError(await generate({ prompt: 'x' }, wrong), 401, 'AUTH_API_KEY_INVALID');
      expect(refused.error.details).toMatchObject({ upstreamCode: '2049', retryable: false });
      expect(JSON.stringify(refused)).not.toContain('sk-delta-wrong');

      const timedOut = await expectError(await generate({ prompt: 'slow [sim:slow=5000]' }, slow), 504, 'UPSTREAM_TIMEOUT');
      expect(timedOut.error.details).toMatchObject({ timeoutMs: 300 });
      const aborted = await sim.simulator.waitForRequest((entry) => entry.route === ROUTE && entry.outcome === 'client-aborted');
      expect(aborted.outcome).toBe('client-aborted');

      // Cancel: an async job is stopped by DELETE /api/inflight, and the upstream sees its call go.
      const accepted = await generate({ prompt: 'cancel me [sim:slow=20000]', async: true, requestId: 'delta-cancel' });
      expect(accepted.status).toBe(202);
      const open = await waitFor('the upstream call', () =>
        sim.simulator.requests({ route: ROUTE }).find((entry) => entry.outcome === 'open'),
      );
      await (await rig.studio.request('/api/inflight/delta-cancel', { method: 'DELETE' })).arrayBuffer();
      const job = (await (await rig.get('/api/jobs/delta-cancel')).json()) as { state: string; error: { code: string } };
      expect(job).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
      const cut = await sim.simulator.waitForRequest((entry) => entry.id === open.id);
      expect(cut.outcome).toBe('client-aborted');
    } finally {
      await bare.stop();
      await wrong.stop();
      await slow.stop();
    }
  });

  it('a refused upstream (nothing listening) is NETWORK_FAILED; no failure left a file', async () => {
    const nowhere = await startLaneRig({ upstreams: { delta: 'http://127.0.0.1:9' }, env: { DELTA_API_KEY: sim.apiKey } });
    try {
      await expectError(await generate({ prompt: 'x' }, nowhere), 502, 'NETWORK_FAILED');
      expect(generatedFiles(nowhere.studio)).toEqual([]);
    } finally {
      await nowhere.stop();
    }
  });
});
