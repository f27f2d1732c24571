import { statSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALPHA_ROUTES, createAlphaSession, startAlphaSimulator, type AlphaSimulator } from '../../src/sim/alpha/index.js';
import { fingerprintSecret } from '../../src/sim/harness.js';
import { ALPHA_PIXELS } from '../../src/studio/lanes/alpha/controls.js';
import { startTestStudio } from '../helpers/studio.js';
import { alphaUpstreams, startAlphaRig, streamedEvents, type AlphaResult, type AlphaRig } from './alpha-rig.js';
import { expectError, generatedFiles, imageDataUrl, lastRequestId, requestsSince } from './gamma-delta-epsilon-rig.js';

// The alpha and alpha-api lanes end to end: a studio on an ephemeral port, both
// lanes pointed at the alpha simulator over HTTP. The pipeline's three phases,
// the size mapping, the planner choice, edits, every code the lanes answer,
// the session (refresh, single-flight, 401 replay), the media download's
// checks, and the status probe.

let sim: AlphaSimulator;
let rig: AlphaRig;

beforeAll(async () => {
  sim = await startAlphaSimulator();
  rig = await startAlphaRig(sim);
});
afterAll(async () => {
  await rig?.stop();
  await sim?.close();
});

const generate = (body: Record<string, unknown>, on: AlphaRig = rig) => on.post('/api/generate', { provider: 'alpha', ...body });
const result = async (response: Response): Promise<AlphaResult> => {
  const body = (await response.json()) as AlphaResult & { error?: unknown };
  expect({ status: response.status, error: body.error }).toEqual({ status: 200, error: undefined });
  return body;
};
const sent = (route: string, since: number) =>
  requestsSince(sim.simulator, since, route).map((entry) => entry.body as Record<string, unknown>);

describe('alpha in discovery', () => {
  it('lists both lanes from their module: models, controls, options, input limit, codes; the native ratios, resolutions and sizes', async () => {
    const body = (await (await rig.get('/api/capabilities')).json()) as {
      providers: Array<Record<string, unknown>>;
      values: Record<string, unknown>;
    };
    for (const id of ['alpha', 'alpha-api']) {
      expect(body.providers.find((provider) => provider.id === id)).toMatchObject({
        built: true,
        operations: { generate: true, edit: true, mask: false, multimode: true },
        controls: ['quality', 'size'],
        options: { properties: { plannerModel: { enum: ['alpha-4.3', 'alpha-4.5', 'alpha-4.6'] }, resolution: { enum: ['1k', '2k'] } } },
        maxInputImages: 3,
        defaultModel: 'alpha-image-2.0',
        codes: {
          invalidModel: 'INVALID_ALPHA_IMAGE_MODEL',
          maskUnsupported: 'ALPHA_MASK_UNSUPPORTED',
          tooManyReferences: 'ALPHA_REF_TOO_MANY',
          options: { plannerModel: 'INVALID_ALPHA_PLANNER_MODEL' },
        },
      });
    }
    expect(body.values.alphaResolutions).toEqual(['1k', '2k']);
    expect(body.values.alphaAspectRatios).toEqual(Object.keys(ALPHA_PIXELS));
    expect(body.values.alphaSizes).toContainEqual({ aspectRatio: '16:9', '1k': '1360x768', '2k': '2736x1536' });
    expect(body.values.alphaPhases).toEqual([
      {
        step: 'search',
        phase: 'searching',
        budgetSeconds: 60,
        variable: 'SVC_ALPHA_SEARCH_TIMEOUT_MS',
        timeoutCode: 'ALPHA_SEARCH_TIMEOUT',
      },
      {
        step: 'planner',
        phase: 'planning',
        budgetSeconds: 60,
        variable: 'SVC_ALPHA_PLANNER_TIMEOUT_MS',
        timeoutCode: 'ALPHA_PLANNER_TIMEOUT',
      },
      { step: 'image', phase: 'rendering', budgetSeconds: 180, variable: 'SVC_ALPHA_IMAGE_TIMEOUT_MS', timeoutCode: 'ALPHA_IMAGE_TIMEOUT' },
    ]);
  });
});

describe('the pipeline', () => {
  it('search, then planner, then image, each a phase in order; the final prompt is the revised prompt, the citations and the cost in USD are on the asset', async () => {
    const mark = lastRequestId(sim.simulator);
    const response = await rig.post(
      '/api/generate',
      { provider: 'alpha', model: 'alpha-image', prompt: 'a lighthouse' },
      { accept: 'text/event-stream' },
    );
    const events = await streamedEvents(response);
    expect(events.filter((event) => event.event === 'phase').map((event) => event.phase)).toEqual([
      'queued',
      'searching',
      'planning',
      'rendering',
      'saving',
    ]);
    const done = events.find((event) => event.event === 'done')?.result as AlphaResult;
    expect(done.revisedPrompt).toBe('A detailed, well-composed image of a lighthouse, true to 3 web sources.');
    expect(done.settings).toMatchObject({
      action: 'generate',
      upstreamModel: 'alpha-image',
      plannerModel: 'alpha-4.3',
      aspectRatio: '1:1',
      resolution: '1k',
      size: '1024x1024',
      output: 'url',
      costUsd: 0.02,
    });
    expect((done.settings.citations as unknown[]).length).toBe(3);
    expect(done.usage?.totalTokens).toBeGreaterThan(0);

    const [search, planner] = sent(ALPHA_ROUTES.responses, mark);
    expect(search).toMatchObject({ model: 'alpha-4.3', tools: [{ type: 'web_search' }], tool_choice: 'required', store: false });
    expect(planner.tools).toBeUndefined();
    expect(JSON.stringify(planner.input)).toContain('https://www.example.org/wiki/a-lighthouse');
    expect(sent(ALPHA_ROUTES.generations, mark)).toEqual([
      { model: 'alpha-image', prompt: done.revisedPrompt, n: 1, response_format: 'url', resolution: '1k', aspect_ratio: '1:1' },
    ]);
    // Every call with the session's token; the temporary link fetched without it.
    const session = JSON.parse(readFileSync(rig.sessionFile, 'utf8')) as { accessToken: string };
    for (const entry of requestsSince(sim.simulator, mark).filter((entry) => entry.route !== ALPHA_ROUTES.media))
      expect(entry.credentialFingerprint).toBe(fingerprintSecret(session.accessToken));
    expect(requestsSince(sim.simulator, mark, ALPHA_ROUTES.media)[0].credentialFingerprint).toBeUndefined();

    const history = (await (await rig.get('/api/history?limit=1')).json()) as {
      items: { revisedPrompt: string; settings: Record<string, unknown>; format: string }[];
    };
    expect(history.items[0]).toMatchObject({
      format: 'jpeg',
      revisedPrompt: done.revisedPrompt,
      settings: { costUsd: 0.02, citations: done.settings.citations },
    });
  });

  it('alpha-api runs the same pipeline with ALPHA_API_KEY', async () => {
    const mark = lastRequestId(sim.simulator);
    const body = await result(await rig.post('/api/generate', { provider: 'alpha-api', prompt: 'a harbor' }));
    expect(body).toMatchObject({ provider: 'alpha-api', model: 'alpha-image-2.0', settings: { costUsd: 0.05 } });
    const calls = requestsSince(sim.simulator, mark).filter((entry) => entry.route !== ALPHA_ROUTES.media);
    expect(calls.map((entry) => entry.route)).toEqual([ALPHA_ROUTES.responses, ALPHA_ROUTES.responses, ALPHA_ROUTES.generations]);
    expect(calls.every((entry) => entry.credentialFingerprint === fingerprintSecret(sim.apiKey))).toBe(true);
  });

  it('a size maps to the nearest native ratio and the nearer resolution; the native options are sent as given; both at once are refused', async () => {
    const cases = [
      [{ size: '1536x1024' }, '3:2', '1k'],
      [{ size: '2048x2048' }, '1:1', '2k'],
      [{ size: '1152x2304' }, '1:2', '2k'],
      [{ options: { aspectRatio: '9:16', resolution: '2k' } }, '9:16', '2k'],
    ] as const;
    for (const [fields, ratio, resolution] of cases) {
      const body = await result(await generate({ prompt: 'a kite', model: 'alpha-image', ...fields }));
      expect(body.settings).toMatchObject({ aspectRatio: ratio, resolution });
      expect(body.images[0]).toMatchObject({
        width: ALPHA_PIXELS[ratio][resolution][0],
        height: ALPHA_PIXELS[ratio][resolution][1],
        format: 'jpeg',
      });
    }
    const mark = lastRequestId(sim.simulator);
    await expectError(await generate({ prompt: 'x', size: '1024x1024', options: { aspectRatio: '1:1' } }), 400, 'BAD_REQUEST');
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it('the planner: alpha-4.3 by default, per request with options.plannerModel, an unknown one refused before any upstream call', async () => {
    const mark = lastRequestId(sim.simulator);
    await result(await generate({ prompt: 'a fox', options: { plannerModel: 'alpha-4.6' } }));
    expect(sent(ALPHA_ROUTES.responses, mark).map((body) => body.model)).toEqual(['alpha-4.6', 'alpha-4.6']);
    const before = lastRequestId(sim.simulator);
    const refused = await expectError(
      await generate({ prompt: 'a fox', options: { plannerModel: 'alpha-9' } }),
      400,
      'INVALID_ALPHA_PLANNER_MODEL',
    );
    expect(refused.error.details).toMatchObject({ field: 'options.plannerModel', valid: ['alpha-4.3', 'alpha-4.5', 'alpha-4.6'] });
    expect(requestsSince(sim.simulator, before)).toEqual([]);
  });

  it('the planner from the settings (PUT /api/defaults), for both lanes', async () => {
    const saved = await rig.studio.request('/api/defaults', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plannerModel: 'alpha-4.5' }),
    });
    expect(((await saved.json()) as Record<string, Record<string, unknown>>).alpha.plannerModel).toEqual({
      value: 'alpha-4.5',
      source: 'config',
    });
    try {
      const mark = lastRequestId(sim.simulator);
      await result(await rig.post('/api/generate', { provider: 'alpha-api', prompt: 'a fox' }));
      expect(sent(ALPHA_ROUTES.responses, mark).map((body) => body.model)).toEqual(['alpha-4.5', 'alpha-4.5']);
      const bad = await rig.studio.request('/api/defaults', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plannerModel: 'alpha-9' }),
      });
      await expectError(bad, 400, 'INVALID_ALPHA_PLANNER_MODEL');
    } finally {
      await rig.studio.request('/api/defaults', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plannerModel: 'alpha-4.3' }),
      });
    }
  });
});

describe('input images', () => {
  it('references go to images/edits as JSON: one as `image` (its ratio kept), several as `images` with the ratio', async () => {
    const [tall, other] = await Promise.all([imageDataUrl('png', 300, 600), imageDataUrl('jpeg', 64, 64)]);
    let mark = lastRequestId(sim.simulator);
    const one = await result(await generate({ prompt: 'in this style', references: [tall], size: '1536x1024' }));
    const [single] = sent(ALPHA_ROUTES.edits, mark);
    expect(single).toMatchObject({
      image: { type: 'image_url', url: expect.stringMatching(/^data:image\/png;base64,/) },
      resolution: '1k',
    });
    expect(single.aspect_ratio).toBeUndefined();
    expect(one.settings).toMatchObject({ action: 'edit', aspectRatio: 'source', references: 1, inputImages: 1 });
    expect(one.images[0]).toMatchObject({ width: 720, height: 1456 });
    mark = lastRequestId(sim.simulator);
    await result(await rig.post('/api/edit', { provider: 'alpha', prompt: 'merge', image: tall, references: [other, other] }));
    const [several] = sent(ALPHA_ROUTES.edits, mark);
    expect((several.images as { url: string }[]).map((image) => image.url.slice(0, 15))).toEqual([
      'data:image/png;',
      'data:image/jpeg',
      'data:image/jpeg',
    ]);
    expect(several.aspect_ratio).toBe('1:1');
  });

  it('four input images: ALPHA_REF_TOO_MANY (references, or an edited image and three references); a mask: ALPHA_MASK_UNSUPPORTED; nothing reaches upstream', async () => {
    const png = await imageDataUrl('png');
    const mark = lastRequestId(sim.simulator);
    await expectError(await generate({ prompt: 'x', references: [png, png, png, png] }), 400, 'ALPHA_REF_TOO_MANY');
    await expectError(
      await rig.post('/api/edit', { provider: 'alpha-api', prompt: 'x', image: png, references: [png, png, png] }),
      400,
      'ALPHA_REF_TOO_MANY',
    );
    await expectError(
      await rig.post('/api/edit', { provider: 'alpha', prompt: 'x', image: png, mask: png }),
      400,
      'ALPHA_MASK_UNSUPPORTED',
    );
    expect(requestsSince(sim.simulator, mark)).toEqual([]);
  });

  it("a node's parent image counts: a child edit goes to images/edits with it first; with three references more it is ALPHA_REF_TOO_MANY", async () => {
    const png = await imageDataUrl('png');
    const root = (await result(await rig.post('/api/node/generate', { provider: 'alpha', prompt: 'a tower' }))) as AlphaResult & {
      nodeId: string;
    };
    const mark = lastRequestId(sim.simulator);
    const child = (await result(
      await rig.post('/api/node/generate', { provider: 'alpha', prompt: 'at night', parentNodeId: root.nodeId, references: [png, png] }),
    )) as AlphaResult & { parentNodeId: string };
    expect(child).toMatchObject({ parentNodeId: root.nodeId, settings: { action: 'edit', references: 2, inputImages: 3 } });
    const [edit] = sent(ALPHA_ROUTES.edits, mark);
    expect((edit.images as { url: string }[]).map((image) => image.url.slice(0, 16))).toEqual([
      'data:image/jpeg;',
      'data:image/png;b',
      'data:image/png;b',
    ]);
    const before = lastRequestId(sim.simulator);
    await expectError(
      await rig.post('/api/node/generate', { provider: 'alpha', prompt: 'x', parentNodeId: root.nodeId, references: [png, png, png] }),
      400,
      'ALPHA_REF_TOO_MANY',
    );
    expect(requestsSince(sim.simulator, before)).toEqual([]);
  });

  it('a model the lanes do not have: INVALID_ALPHA_IMAGE_MODEL', async () => {
    await expectError(await generate({ prompt: 'x', model: 'alpha-image-9' }), 400, 'INVALID_ALPHA_IMAGE_MODEL');
    await expectError(
      await rig.post('/api/generate', { provider: 'alpha-api', prompt: 'x', model: 'lang-6-luna' }),
      400,
      'INVALID_ALPHA_IMAGE_MODEL',
    );
  });
});

describe('upstream failures in the lanes codes', () => {
  it('429: ALPHA_RATE_LIMITED with Retry-After, in either error shape; the spend cap is its own code, not retryable', async () => {
    for (const prompt of ['x [sim:ratelimit=5]', 'x [sim:ratelimit=5] [sim:object-errors]']) {
      const response = await generate({ prompt });
      expect(response.headers.get('retry-after')).toBe('5');
      const body = await expectError(response, 429, 'ALPHA_RATE_LIMITED');
      expect(body.error.details).toMatchObject({ step: 'image', retryable: true, upstreamStatus: 429 });
    }
    const capped = await expectError(
      await rig.post('/api/generate', { provider: 'alpha-api', prompt: 'x [sim:credits]' }),
      402,
      'ALPHA_SPEND_CAP_REACHED',
    );
    expect(capped.error.details).toMatchObject({ retryable: false });
  });

  it('refused credentials: ALPHA_AUTH_FAILED (a 401, a 403, an unknown key answered 400), the key never in the answer', async () => {
    await expectError(await rig.post('/api/generate', { provider: 'alpha-api', prompt: 'x [sim:unauthorized]' }), 401, 'ALPHA_AUTH_FAILED');
    await expectError(await generate({ prompt: 'x [sim:forbidden]' }), 401, 'ALPHA_AUTH_FAILED');
    const other = await startAlphaRig(sim, { env: { ALPHA_API_KEY: 'wrong-alpha-key-0123456789' } });
    try {
      const response = await other.post('/api/generate', { provider: 'alpha-api', prompt: 'x' });
      const text = await response.clone().text();
      await expectError(response, 401, 'ALPHA_AUTH_FAILED');
      expect(text).not.toContain('wrong-alpha-key-0123456789');
    } finally {
      await other.stop();
    }
  });

  it('5xx, a vendor 404, a body off the protocol, no image', async () => {
    await expectError(await generate({ prompt: 'x [sim:server-error]' }), 502, 'UPSTREAM_FAILED');
    await expectError(await generate({ prompt: 'x [sim:unavailable]' }), 502, 'UPSTREAM_FAILED');
    await expectError(await generate({ prompt: 'x [sim:search-error]' }), 502, 'UPSTREAM_FAILED');
    await expectError(await generate({ prompt: 'x [sim:model-not-found]' }), 400, 'INVALID_ALPHA_IMAGE_MODEL');
    await expectError(await generate({ prompt: 'x [sim:malformed]' }), 502, 'UPSTREAM_PROTOCOL_ERROR');
    await expectError(await generate({ prompt: 'x [sim:no-image]' }), 502, 'UPSTREAM_FAILED');
    await expectError(await generate({ prompt: 'x [sim:planner-empty]' }), 502, 'UPSTREAM_FAILED');
  });

  it('each phase has its own budget and code', async () => {
    const short = await startAlphaRig(sim, {
      env: { SVC_ALPHA_SEARCH_TIMEOUT_MS: '400', SVC_ALPHA_PLANNER_TIMEOUT_MS: '400', SVC_ALPHA_IMAGE_TIMEOUT_MS: '400' },
    });
    try {
      for (const [trigger, code] of [
        ['slow-search', 'ALPHA_SEARCH_TIMEOUT'],
        ['slow-planner', 'ALPHA_PLANNER_TIMEOUT'],
        ['slow-image', 'ALPHA_IMAGE_TIMEOUT'],
      ]) {
        const body = await expectError(await generate({ prompt: `x [sim:${trigger}=3000]` }, short), 504, code);
        expect(body.error.details).toMatchObject({ timeoutMs: 400 });
      }
    } finally {
      await short.stop();
    }
  });

  it('the lane variable caps the whole pipeline: the step running when it ends answers its own code', async () => {
    const capped = await startAlphaRig(sim, { env: { SVC_ALPHA_API_TIMEOUT_MS: '1500' } });
    try {
      const body = await expectError(
        await generate({ provider: 'alpha-api', prompt: 'x [sim:slow-planner=6000]' }, capped),
        504,
        'ALPHA_PLANNER_TIMEOUT',
      );
      expect(body.error.details?.timeoutMs).toBeLessThanOrEqual(1500);
    } finally {
      await capped.stop();
    }
  });
});

describe('the image link', () => {
  it('is refused unless https on a public address or the lane own origin, followed by no redirect, within the size limit, and must sniff as an image; nothing is saved', async () => {
    const before = generatedFiles(rig.studio, { imagesOnly: true }).length;
    for (const trigger of ['url-elsewhere', 'url-private', 'url-localhost', 'url-redirect', 'url-huge', 'url-not-image', 'url-expired']) {
      const body = await expectError(await generate({ prompt: `x [sim:${trigger}]` }), 502, 'ALPHA_OUTPUT_DOWNLOAD_FAILED');
      expect({ trigger, step: body.error.details?.step }).toEqual({ trigger, step: 'download' });
    }
    expect(generatedFiles(rig.studio, { imagesOnly: true }).length).toBe(before);
  });

  it('the type comes from the bytes, not the name', async () => {
    const body = await result(await generate({ prompt: 'x [sim:url-png]' }));
    expect(body.images[0].format).toBe('png');
    const file = Buffer.from(await (await rig.get(body.images[0].url)).arrayBuffer());
    expect((await sharp(file).metadata()).format).toBe('png');
  });
});

describe('the session', () => {
  it('no session file: ALPHA_AUTH_FAILED before the job; the lane says needs_credential', async () => {
    const bare = await startAlphaRig(sim, { session: false });
    try {
      const body = await expectError(
        await bare.post('/api/generate', { provider: 'alpha', prompt: 'x', async: true, requestId: 'no-session' }),
        401,
        'ALPHA_AUTH_FAILED',
      );
      expect(body.error.details).toMatchObject({ reason: 'login_required' });
      const providers = (await (await bare.get('/api/providers')).json()) as { providers: { id: string; state: string }[] };
      expect(providers.providers.find((provider) => provider.id === 'alpha')?.state).toBe('needs_credential');
      expect(await (await bare.get('/api/health')).json()).toMatchObject({ alpha: { auth: 'none' } });
    } finally {
      await bare.stop();
    }
  });

  it('an access token about to expire is refreshed once for two jobs at once (single-flight), written back 0600 keeping unknown keys', async () => {
    const other = await startAlphaRig(sim, { session: false });
    try {
      other.writeSession({ ...createAlphaSession(sim, { accessTtlSeconds: 30 }), note: 'kept' });
      const refreshes = sim.tokens.refreshes;
      const [first, second] = await Promise.all([
        other.post('/api/generate', { provider: 'alpha', prompt: 'one' }),
        other.post('/api/generate', { provider: 'alpha', prompt: 'two' }),
      ]);
      await result(first);
      await result(second);
      expect(sim.tokens.refreshes - refreshes).toBe(1);
      const file = JSON.parse(readFileSync(other.sessionFile, 'utf8')) as Record<string, unknown>;
      expect(file).toMatchObject({ note: 'kept', email: sim.account.email, accountId: sim.account.userId });
      expect(file.expiresAt as number).toBeGreaterThan(Date.now() + 30 * 60_000);
      expect(statSync(other.sessionFile).mode & 0o777).toBe(0o600);
    } finally {
      await other.stop();
    }
  });

  it('a 401 on the session refreshes and replays once; a dead refresh token is ALPHA_AUTH_FAILED (login required)', async () => {
    const other = await startAlphaRig(sim, { session: false });
    try {
      const good = createAlphaSession(sim);
      other.writeSession({ ...good, accessToken: 'eyJhbGciOiJIUzI1NiJ9.e30.bad-signature' });
      const body = await result(await other.post('/api/generate', { provider: 'alpha', prompt: 'replayed' }));
      expect(body.provider).toBe('alpha');
      other.writeSession({ ...createAlphaSession(sim, { expired: true }), refreshToken: 'alpha_rt_unknown' });
      const refused = await expectError(await other.post('/api/generate', { provider: 'alpha', prompt: 'x' }), 401, 'ALPHA_AUTH_FAILED');
      expect(refused.error.details).toMatchObject({ reason: 'login_required' });
    } finally {
      await other.stop();
    }
  });
});

describe('GET /api/alpha/status', () => {
  it('ready with the models; no_image_model; error with the status; offline with login_required after logout, and health says so', async () => {
    const other = await startAlphaRig(sim);
    try {
      expect(await (await other.get('/api/alpha/status')).json()).toMatchObject({
        status: 'ready',
        models: expect.arrayContaining(['alpha-image', 'alpha-4.3']),
      });
      expect(await (await other.get('/api/health')).json()).toMatchObject({ alpha: { auth: 'oauth' } });
      sim.simulator.fault(ALPHA_ROUTES.models, { status: 200, body: { object: 'list', data: [{ id: 'alpha-4.3', object: 'model' }] } });
      expect(await (await other.get('/api/alpha/status')).json()).toEqual({ status: 'no_image_model', models: ['alpha-4.3'] });
      sim.simulator.fault(ALPHA_ROUTES.models, { status: 500 });
      expect(await (await other.get('/api/alpha/status')).json()).toEqual({ status: 'error', reason: 'HTTP 500' });
      expect(await (await other.get('/api/alpha/session')).json()).toMatchObject({
        auth: 'oauth',
        email: sim.account.email,
        refreshable: true,
      });

      const logout = await other.studio.request('/api/alpha/session', { method: 'DELETE' });
      expect(await logout.json()).toEqual({ removed: true, auth: 'none' });
      const status = await other.get('/api/alpha/status');
      expect({ code: status.status, body: await status.json() }).toEqual({
        code: 200,
        body: { status: 'offline', reason: 'login_required' },
      });
      expect(await (await other.get('/api/health')).json()).toMatchObject({ alpha: { auth: 'none' } });
    } finally {
      await other.stop();
    }
  });

  it('offline without a reason when the vendor cannot be reached', async () => {
    const gone = await startAlphaSimulator();
    const deadUrl = gone.apiBaseUrl;
    await gone.close();
    const studio = await startTestStudio({
      env: { SVC_ALPHA_AUTH_FILE: rig.sessionFile },
      upstreams: { ...alphaUpstreams(sim), alpha: deadUrl },
    });
    try {
      expect(await (await studio.request('/api/alpha/status')).json()).toEqual({ status: 'offline' });
    } finally {
      await studio.stop();
    }
  });
});
