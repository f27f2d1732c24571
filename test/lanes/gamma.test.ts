import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GAMMA_MODELS, GAMMA_ROUTES, startGammaSimulator, type GammaSimulator } from '../../src/sim/gamma/index.js';
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

// The gamma lane end to end: a studio on an ephemeral port, its gamma lane
// pointed at the gamma simulator over HTTP (uploads, submit, polling, output
// links). Every code the lane answers is triggered here; the restart of a
// studio in the middle of a poll is in gamma-resume.test.ts.

let sim: GammaSimulator;
let rig: LaneRig;

beforeAll(async () => {
  sim = await startGammaSimulator();
  rig = await startLaneRig({ upstreams: { gamma: sim.baseUrl }, env: { GAMMA_API_KEY: sim.apiKey } });
});
afterAll(async () => {
  await rig?.stop();
  await sim?.close();
});

const generate = (body: Record<string, unknown>, on: LaneRig = rig) => on.post('/api/generate', { provider: 'gamma', ...body });
const lastSubmit = () => sim.simulator.lastRequest({ route: GAMMA_ROUTES.submit })?.body as Record<string, unknown>;

interface Result {
  requestId: string;
  provider: string;
  model: string;
  images: { filename: string; format: string; width: number; height: number }[];
  settings: Record<string, unknown>;
}

describe('gamma in discovery', () => {
  it('lists its model, controls, options, reference limit and codes from its module', async () => {
    const body = (await (await rig.get('/api/capabilities')).json()) as { providers: Array<Record<string, unknown>> };
    expect(body.providers.find((provider) => provider.id === 'gamma')).toMatchObject({
      built: true,
      operations: { generate: true, edit: true, mask: false, multimode: true },
      controls: ['quality', 'size', 'format'],
      options: { properties: { background: { enum: ['auto', 'opaque', 'transparent'] } } },
      maxInputImages: 10,
      timeoutSeconds: 180,
      timeoutVariable: 'SVC_GAMMA_TIMEOUT_MS',
      defaultModel: 'gamma-image-2',
      codes: { missingCredential: 'API_KEY_REQUIRED', tooManyReferences: 'GAMMA_REF_TOO_MANY' },
    });
  });
});

describe('gamma generates', () => {
  it('text-to-image: submit, poll, download; the prediction id is kept on the job', async () => {
    const response = await generate({ prompt: 'a blue teapot', requestId: 'gamma-t2i' });
    expect(response.status).toBe(200);
    const result = (await response.json()) as Result;
    expect(result).toMatchObject({ provider: 'gamma', model: 'gamma-image-2', images: [{ format: 'png', width: 1024, height: 1024 }] });
    expect(result.settings).toMatchObject({
      upstreamModel: GAMMA_MODELS.textToImage,
      size: '1024x1024',
      quality: 'medium',
      format: 'png',
      background: 'auto',
      references: 0,
    });
    expect(lastSubmit()).toEqual({
      model: GAMMA_MODELS.textToImage,
      prompt: 'a blue teapot',
      size: '1024x1024',
      quality: 'medium',
      output_format: 'png',
      background: 'auto',
      enable_base64_output: false,
      enable_sync_mode: false,
    });
    const submit = sim.simulator.lastRequest({ route: GAMMA_ROUTES.submit });
    expect(submit?.credentialFingerprint).toBe(fingerprintSecret(sim.apiKey));
    const job = (await (await rig.get('/api/jobs/gamma-t2i')).json()) as {
      state: string;
      upstream: { operationId: string; state: string };
    };
    expect(job).toMatchObject({ state: 'succeeded', upstream: { operationId: result.settings.predictionId, state: 'completed' } });
    // The output link was fetched without the key (links are public).
    expect(sim.simulator.lastRequest({ route: GAMMA_ROUTES.file })?.credentialFingerprint).toBeUndefined();
  });

  it('with references: each uploaded (multipart, in order, every answer shape), then the edit model', async () => {
    const mark = lastRequestId(sim.simulator);
    const references = await Promise.all(
      Array.from({ length: 10 }, (_, index) => imageDataUrl(index % 2 ? 'jpeg' : 'png', 32 + index, 32)),
    );
    const result = (await (await generate({ prompt: 'all of these together', references })).json()) as Result;
    expect(result.settings).toMatchObject({ upstreamModel: GAMMA_MODELS.edit, references: 10 });
    const uploads = requestsSince(sim.simulator, mark, GAMMA_ROUTES.upload);
    expect(uploads.map((entry) => (entry.body as { files: { name: string; filename: string; contentType: string }[] }).files[0])).toEqual(
      Array.from({ length: 10 }, (_, index) => ({
        name: 'file',
        filename: `reference-${index}.${index % 2 ? 'jpg' : 'png'}`,
        contentType: index % 2 ? 'image/jpeg' : 'image/png',
        size: expect.any(Number),
      })),
    );
    // Every upload came before the submit, and the submit names them in order.
    const submit = requestsSince(sim.simulator, mark, GAMMA_ROUTES.submit)[0];
    expect(Math.max(...uploads.map((entry) => entry.id))).toBeLessThan(submit.id);
    const images = (submit.body as { images: string[] }).images;
    expect(images).toHaveLength(10);
    expect(new Set(images).size).toBe(10);
    expect((submit.body as { model: string }).model).toBe(GAMMA_MODELS.edit);
  });

  it('11 references are refused before any upstream call', async () => {
    const mark = lastRequestId(sim.simulator);
    const reference = await imageDataUrl('png');
    const body = await expectError(
      await generate({ prompt: 'too many', references: Array(11).fill(reference) }),
      400,
      'GAMMA_REF_TOO_MANY',
    );
    expect(body.error.details).toMatchObject({ lane: 'gamma', max: 10, got: 11 });
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it('an edit sends the edited image first, then the references; a mask is refused', async () => {
    const mark = lastRequestId(sim.simulator);
    const image = await imageDataUrl('png', 80, 80);
    const response = await rig.post('/api/edit', {
      provider: 'gamma',
      prompt: 'make it blue',
      image,
      references: [await imageDataUrl('jpeg')],
    });
    expect(response.status).toBe(200);
    const uploads = requestsSince(sim.simulator, mark, GAMMA_ROUTES.upload).map(
      (entry) => (entry.body as { files: { filename: string }[] }).files[0].filename,
    );
    expect(uploads).toEqual(['reference-0.png', 'reference-1.jpg']);
    expect(lastSubmit()).toMatchObject({ model: GAMMA_MODELS.edit });
    await expectError(await rig.post('/api/edit', { provider: 'gamma', prompt: 'x', image, mask: image }), 400, 'MASK_UNSUPPORTED');
  });

  it('quality, size and format as asked; a transparent background gives a PNG', async () => {
    const webp = (await (await generate({ prompt: 'wide', quality: 'high', size: '1536x1024', format: 'webp' })).json()) as Result;
    expect(webp).toMatchObject({
      images: [{ format: 'webp', width: 1536, height: 1024 }],
      settings: { quality: 'high', size: '1536x1024', format: 'webp' },
    });
    expect(lastSubmit()).toMatchObject({ quality: 'high', size: '1536x1024', output_format: 'webp' });
    const clear = (await (
      await generate({ prompt: 'a sticker', format: 'jpeg', options: { background: 'transparent' } })
    ).json()) as Result;
    expect(clear).toMatchObject({ images: [{ format: 'png' }], settings: { format: 'png', background: 'transparent' } });
    expect(lastSubmit()).toMatchObject({ output_format: 'png', background: 'transparent' });
    const bad = await expectError(await generate({ prompt: 'x', options: { background: 'glass' } }), 400, 'BAD_REQUEST');
    expect(bad.error.details).toMatchObject({ field: 'options.background', valid: ['auto', 'opaque', 'transparent'] });
  });

  it('reads every place the contract gives an id, a status or an output', async () => {
    const variants = [
      'id-top',
      'id-request-id',
      'id-data-request-id',
      'id-prediction-id',
      'starting',
      'status-top',
      'done-succeeded',
      'done-success',
      'output-object',
      'output-result',
      'output-data-uri',
    ];
    const outcomes = await Promise.all(
      variants.map(async (variant) => {
        const response = await generate({ prompt: `variant [sim:${variant}]`, size: '512x512' });
        return { variant, status: response.status, images: ((await response.json()) as Result).images?.length };
      }),
    );
    expect(outcomes).toEqual(variants.map((variant) => ({ variant, status: 200, images: 1 })));
  });

  it('a poll that fails for a moment (503, a cut connection) is repeated, not fatal', async () => {
    sim.simulator.fault(GAMMA_ROUTES.poll, { status: 503 });
    sim.simulator.fault(GAMMA_ROUTES.poll, { disconnectAfterBytes: 0 });
    expect((await generate({ prompt: 'patient' })).status).toBe(200);
  });
});

describe('gamma failures', () => {
  it('the submit: a refused key, a rate limit, a server error (reason in data.error), no prediction id, a body off the protocol', async () => {
    const auth = await expectError(await generate({ prompt: 'x [sim:unauthorized]' }), 401, 'AUTH_API_KEY_INVALID');
    expect(auth.error.details).toMatchObject({ upstreamStatus: 401, retryable: false });
    const limited = await generate({ prompt: 'x [sim:ratelimit]' });
    await expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('3');
    const server = await expectError(await generate({ prompt: 'x [sim:server-error]' }), 502, 'UPSTREAM_FAILED');
    expect(server.error.details).toMatchObject({ upstreamStatus: 500, upstreamMessage: 'inference backend unavailable', retryable: true });
    await expectError(await generate({ prompt: 'x [sim:no-id]' }), 502, 'GAMMA_NO_PREDICTION_ID');
    sim.simulator.fault(GAMMA_ROUTES.submit, { malformed: true });
    await expectError(await generate({ prompt: 'x' }), 502, 'UPSTREAM_PROTOCOL_ERROR');
  });

  it('uploads: an error status, an answer without a URL, a refused key; nothing is submitted', async () => {
    const reference = await imageDataUrl('png');
    const cases: Array<[object, number, string]> = [
      [{ status: 500 }, 502, 'GAMMA_UPLOAD_FAILED'],
      [{ status: 200, body: { code: 200, message: 'success', data: {} } }, 502, 'GAMMA_UPLOAD_NO_URL'],
      [{ status: 200, body: { code: 200, message: 'success', data: { url: 'ftp://nowhere/x.png' } } }, 502, 'GAMMA_UPLOAD_NO_URL'],
      [{ status: 401 }, 401, 'AUTH_API_KEY_INVALID'],
    ];
    for (const [fault, status, code] of cases) {
      const mark = lastRequestId(sim.simulator);
      sim.simulator.fault(GAMMA_ROUTES.upload, fault);
      await expectError(await generate({ prompt: 'upload', references: [reference] }), status, code);
      expect(requestsSince(sim.simulator, mark, GAMMA_ROUTES.submit)).toEqual([]);
    }
    // The vendor's reason comes along.
    sim.simulator.fault(GAMMA_ROUTES.upload, { status: 413, body: { code: 413, message: 'file too large', data: null } });
    const tooLarge = await expectError(await generate({ prompt: 'upload', references: [reference] }), 502, 'GAMMA_UPLOAD_FAILED');
    expect(tooLarge.error.details).toMatchObject({ upstreamStatus: 413, upstreamMessage: 'file too large', retryable: false });
  });

  it('the prediction: failed, error and canceled, with the upstream reason', async () => {
    const failed = await expectError(await generate({ prompt: 'x [sim:failed]' }), 502, 'GAMMA_GENERATION_FAILED');
    expect(failed.error.message).toContain('content flagged by the safety system');
    expect(failed.error.details).toMatchObject({ upstreamStatus: 'failed', retryable: false });
    expect((await expectError(await generate({ prompt: 'x [sim:error-status]' }), 502, 'GAMMA_GENERATION_FAILED')).error.message).toContain(
      'worker crashed',
    );
    expect((await expectError(await generate({ prompt: 'x [sim:canceled]' }), 502, 'GAMMA_GENERATION_FAILED')).error.message).toContain(
      'canceled by the platform',
    );
  });

  it('the output: a link that is neither https nor the simulator, a 404, not an image, over the size limit', async () => {
    const unsafe = await expectError(await generate({ prompt: 'x [sim:output-unsafe]' }), 502, 'GAMMA_OUTPUT_DOWNLOAD_FAILED');
    expect(unsafe.error.details).toMatchObject({ output: expect.stringContaining('http://files.example.invalid') });
    const missing = await expectError(await generate({ prompt: 'x [sim:output-missing]' }), 502, 'GAMMA_OUTPUT_DOWNLOAD_FAILED');
    expect(missing.error.details).toMatchObject({ upstreamStatus: 404 });
    const text = await expectError(await generate({ prompt: 'x [sim:output-not-image]' }), 502, 'GAMMA_OUTPUT_DOWNLOAD_FAILED');
    expect(text.error.message).toContain('not a PNG, JPEG or WebP');
    const huge = await expectError(await generate({ prompt: 'x [sim:output-huge]' }), 502, 'GAMMA_OUTPUT_DOWNLOAD_FAILED');
    expect(huge.error.message).toContain('limit is 52428800');
  });

  it('the time budget: a prediction that never ends is GENERATION_TIMEOUT', async () => {
    const slow = await startLaneRig({
      upstreams: { gamma: sim.baseUrl },
      env: { GAMMA_API_KEY: sim.apiKey, SVC_GAMMA_TIMEOUT_MS: '1200' },
    });
    try {
      const body = await expectError(await generate({ prompt: 'forever [sim:never]' }, slow), 504, 'GENERATION_TIMEOUT');
      expect(body.error.details).toMatchObject({ lane: 'gamma', timeoutMs: 1200, predictionId: expect.stringMatching(/^pred_/) });
    } finally {
      await slow.stop();
    }
  });

  it("the time budget: a submit the vendor holds past the deadline is GENERATION_TIMEOUT too, not the cut call's error", async () => {
    const slow = await startLaneRig({ upstreams: { gamma: sim.baseUrl }, env: { GAMMA_API_KEY: sim.apiKey, SVC_GAMMA_TIMEOUT_MS: '800' } });
    sim.simulator.fault(GAMMA_ROUTES.submit, { latencyMs: 5_000, times: 1 });
    try {
      const body = await expectError(await generate({ prompt: 'held at the door' }, slow), 504, 'GENERATION_TIMEOUT');
      expect(body.error.details).toMatchObject({ lane: 'gamma', timeoutMs: 800 });
    } finally {
      sim.simulator.clearFaults();
      await slow.stop();
    }
  });

  it('cancel stops the poll: the poll in flight is aborted and the job ends cancelled', async () => {
    const accepted = await generate({ prompt: 'never ends [sim:never]', async: true, requestId: 'gamma-cancel' });
    expect(accepted.status).toBe(202);
    await waitFor(
      'the prediction id on the job',
      async () => ((await (await rig.get('/api/jobs/gamma-cancel')).json()) as { upstream: unknown }).upstream,
    );
    // Hold the next poll open upstream, so the cancel meets it in flight.
    sim.simulator.fault(GAMMA_ROUTES.poll, { latencyMs: 20_000, times: 'always' });
    try {
      const open = await waitFor('a poll in flight', () =>
        sim.simulator.requests({ route: GAMMA_ROUTES.poll }).find((entry) => entry.outcome === 'open'),
      );
      await (await rig.studio.request('/api/inflight/gamma-cancel', { method: 'DELETE' })).arrayBuffer();
      expect(((await (await rig.get('/api/jobs/gamma-cancel')).json()) as { state: string }).state).toBe('cancelled');
      expect((await sim.simulator.waitForRequest((entry) => entry.id === open.id)).outcome).toBe('client-aborted');
      expect(((await (await rig.get('/api/inflight')).json()) as { jobs: unknown[] }).jobs).toEqual([]);
    } finally {
      sim.simulator.clearFaults();
    }
  });

  it('no key, a refused key (never echoed), nothing listening; no failure left a file', async () => {
    const bare = await startLaneRig({ upstreams: { gamma: sim.baseUrl } });
    const wrong = await startLaneRig({ upstreams: { gamma: sim.baseUrl }, env: { GAMMA_API_KEY: 'apikey-wrong-0123456789abcdef' } });
    const nowhere = await startLaneRig({ upstreams: { gamma: 'http://127.0.0.1:9/api/v1' }, env: { GAMMA_API_KEY: sim.apiKey } });
    try {
      const mark = lastRequestId(sim.simulator);
      const missing = await expectError(await generate({ prompt: 'x' }, bare), 401, 'API_KEY_REQUIRED');
      expect(missing.error.details).toMatchObject({ env: 'GAMMA_API_KEY' });
      expect(requestsSince(sim.simulator, mark)).toEqual([]);
      const refused = await expectError(await generate({ prompt: 'x' }, wrong), 401, 'AUTH_API_KEY_INVALID');
      expect(JSON.stringify(refused)).not.toContain('apikey-wrong');
      await expectError(await generate({ prompt: 'x' }, nowhere), 502, 'NETWORK_FAILED');
      for (const other of [bare, wrong, nowhere]) expect(generatedFiles(other.studio)).toEqual([]);
    } finally {
      await Promise.all([bare.stop(), wrong.stop(), nowhere.stop()]);
    }
  });
});
