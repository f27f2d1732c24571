import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectEvents, type StreamedEvent } from '../generate/rig.js';
import { generationResult, type GenerationResult } from '../../src/studio/api/index.js';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';

// Issue 29, items 1-3: what a client written from the spec alone sends, on a
// demo studio (every lane on its simulator). A bare If-Match version saves; a
// common control a lane lacks where the spec is silent is dropped with a
// warning, one the spec forbids stays refused; auto considers every ready lane
// and, when none can take the request, names each lane and why.

let studio: DemoStudio;

beforeAll(async () => {
  studio = await startDemoStudio('svc-first-hour-');
});
afterAll(() => studio?.stop());

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T & { error?: { code: string; message: string; details?: Record<string, unknown> } };
  headers: Headers;
}

async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  const response = await fetch(`${studio.url}${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Answer<T>['body'], headers: response.headers };
}

describe('item 1: If-Match with the version, bare or quoted', () => {
  it('saves with If-Match: <version> and answers the ETag quoted; a stale bare version is 412', async () => {
    const created = await call<{ id: string; version: number }>('POST', '/api/sessions', { title: 'Bare precondition' });
    const graph = { nodes: [{ id: 'a', position: { x: 0, y: 0 } }], edges: [] };
    const saved = await call<{ version: number }>('PUT', `/api/sessions/${created.body.id}/graph`, graph, {
      'if-match': String(created.body.version),
    });
    expect(saved.status).toBe(200);
    expect(saved.body.version).toBe(created.body.version + 1);
    expect(saved.headers.get('etag')).toBe(`"${created.body.version + 1}"`);
    // The quoted form still works, and a list may mix both.
    const quoted = await call('PUT', `/api/sessions/${created.body.id}/graph`, graph, { 'if-match': `"${saved.body.version}"` });
    expect(quoted.status).toBe(200);
    const stale = await call('PUT', `/api/sessions/${created.body.id}/graph`, graph, { 'if-match': String(created.body.version) });
    expect(stale.status).toBe(412);
    expect(stale.body.error?.code).toBe('GRAPH_VERSION_CONFLICT');
    const mixed = await call('PUT', `/api/sessions/${created.body.id}/graph`, graph, { 'if-match': `1, ${saved.body.version + 1}` });
    expect(mixed.status).toBe(200);
  });
});

/** The events of one generation on its own stream, up to the terminal one. */
async function streamed(body: unknown): Promise<StreamedEvent[]> {
  const response = await fetch(`${studio.url}/api/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return collectEvents(response, (event) => (event.event === 'done' || event.event === 'error') && !('slot' in event));
}

describe('item 2: common controls a lane lacks', () => {
  it('quality "high" on gamma succeeds (its contract has quality: no warning), moderation there is dropped with one; delta drops three', async () => {
    const answer = await call<GenerationResult>('POST', '/api/generate', {
      prompt: 'a lighthouse at dusk',
      provider: 'gamma',
      quality: 'high',
      moderation: 'low',
      size: '1024x1024',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.settings.quality).toBe('high');
    expect(answer.body.warnings).toEqual([{ type: 'unsupported', field: 'moderation', lane: 'gamma' }]);
    const delta = await call<GenerationResult>('POST', '/api/generate', {
      prompt: 'a lighthouse at dusk',
      provider: 'delta',
      quality: 'high',
      moderation: 'low',
      format: 'webp',
    });
    expect(delta.status, JSON.stringify(delta.body)).toBe(200);
    expect(generationResult.parse(delta.body).warnings).toEqual([
      { type: 'unsupported', field: 'quality', lane: 'delta' },
      { type: 'unsupported', field: 'format', lane: 'delta' },
      { type: 'unsupported', field: 'moderation', lane: 'delta' },
    ]);
    expect(delta.body.settings.quality).toBeUndefined();
  });

  it('the done event carries the warnings (alpha, epsilon)', async () => {
    for (const provider of ['epsilon', 'alpha'] as const) {
      const events = await streamed({ prompt: 'a quiet harbour', provider, moderation: 'low' });
      const done = events.at(-1) as { event: string; result: GenerationResult; warnings?: unknown };
      expect(done.event, JSON.stringify(done)).toBe('done');
      expect(done.result.warnings).toEqual([{ type: 'unsupported', field: 'moderation', lane: provider }]);
      expect(done.warnings).toEqual(done.result.warnings);
    }
  });

  it('what the spec says a lane lacks stays refused: beta-api quality/format/moderation, cligen size, negativePrompt off epsilon', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ provider: 'beta-api', quality: 'high' }, 'LANE_UNSUPPORTED', 'quality'],
      [{ provider: 'beta-api', format: 'jpeg' }, 'LANE_UNSUPPORTED', 'format'],
      [{ provider: 'beta-api', moderation: 'low' }, 'LANE_UNSUPPORTED', 'moderation'],
      [{ provider: 'cligen', size: '1024x1024' }, 'LANE_UNSUPPORTED', 'size'],
      [{ provider: 'cligen', quality: 'low' }, 'LANE_UNSUPPORTED', 'quality'],
      [{ provider: 'gamma', negativePrompt: 'blur' }, 'LANE_UNSUPPORTED', 'negativePrompt'],
    ];
    for (const [fields, code, field] of cases) {
      const answer = await call('POST', '/api/generate', { prompt: 'a fox', ...fields });
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(answer.body.error).toMatchObject({ code, details: { field } });
    }
  });

  it('a lane option stays in options: an unknown one is still refused', async () => {
    const answer = await call('POST', '/api/generate', { prompt: 'a fox', provider: 'delta', options: { sampler: 'euler' } });
    expect(answer.status).toBe(400);
  });
});

describe('item 3: auto considers every ready lane', () => {
  it('model image-01 runs on delta, saying which lanes it passed over', async () => {
    const answer = await call<GenerationResult>('POST', '/api/generate', { prompt: 'a red kite', model: 'image-01' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ provider: 'delta', model: 'image-01' });
    expect(answer.body.routing?.requested).toBe('auto');
    expect(answer.body.routing?.skipped.oauth).toMatch(/does not offer image-01/);
  });

  it('a negativePrompt runs on epsilon', async () => {
    const answer = await call<GenerationResult>('POST', '/api/generate', { prompt: 'a red kite', negativePrompt: 'blurry' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.provider).toBe('epsilon');
  });

  it('references: auto skips a lane that takes fewer, and says so', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const answer = await call('POST', '/api/generate', { prompt: 'a red kite', model: 'image-01', references: [png, png] });
    expect(answer.status).toBe(503);
    expect(answer.body.error?.details?.lanes).toMatchObject({ delta: 'takes at most 1 reference' });
    expect(answer.body.error?.message).toMatch(/delta: takes at most 1 reference/);
  });

  it('when none can take it, the message names each lane considered and why', async () => {
    const answer = await call('POST', '/api/generate', { prompt: 'a red kite', model: 'nano-fruit-pro', negativePrompt: 'blurry' });
    expect(answer.status).toBe(503);
    expect(answer.body.error?.code).toBe('LANE_NOT_AVAILABLE');
    expect(answer.body.error?.message).toMatch(
      /Considered: .*oauth: does not offer nano-fruit-pro.*beta-api: has no negativePrompt control/,
    );
    expect(Object.keys(answer.body.error?.details?.lanes as object)).toEqual(
      expect.arrayContaining(['oauth', 'gamma', 'delta', 'epsilon', 'flow']),
    );
  });
});

describe('item 4: groupBy=session groups by session title', () => {
  interface Group {
    sessionTitle: string | null;
    sessionIds: string[];
    sessionId: string | null;
    count: number;
    items: { filename: string; format: string }[];
  }
  const groups = async () => (await call<{ groups: Group[] }>('GET', '/api/history?groupBy=session&limit=200')).body.groups;
  const node = async (sessionId: string) => {
    const answer = await call<{ asset: { filename: string } }>('POST', '/api/node/generate', {
      prompt: 'a paper crane',
      provider: 'gamma',
      sessionId,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body.asset.filename;
  };

  it('sessions sharing a title share one group listing their ids; a rename moves the session and its trace, leaving no ghost', async () => {
    const first = await call<{ id: string }>('POST', '/api/sessions', { title: 'Cranes' });
    const second = await call<{ id: string }>('POST', '/api/sessions', { title: 'Cranes' });
    const image = await node(first.body.id);
    await node(second.body.id);
    const trace = await call<{ filename: string }>(
      'POST',
      `/api/assets/derived?kind=vector-svg&source=${encodeURIComponent(image)}&preset=poster`,
    );
    expect(trace.status, JSON.stringify(trace.body)).toBe(201);

    const cranes = (await groups()).filter((group) => group.sessionTitle === 'Cranes');
    expect(cranes).toHaveLength(1);
    expect(cranes[0].sessionIds).toEqual([first.body.id, second.body.id].sort());
    expect(cranes[0].sessionId).toBeNull();
    expect(cranes[0].count).toBe(3);
    // The continuation by title lists the same group.
    const listed = await call<{ items: { filename: string }[] }>('GET', `/api/history?session=Cranes`);
    expect(listed.body.items.map((item) => item.filename).sort()).toEqual(cranes[0].items.map((item) => item.filename).sort());

    // A rename moves the first session, its image and the trace of it.
    expect((await call('PATCH', `/api/sessions/${first.body.id}`, { title: 'Origami' })).status).toBe(200);
    const after = await groups();
    const origami = after.filter((group) => group.sessionTitle === 'Origami');
    expect(origami).toHaveLength(1);
    expect(origami[0]).toMatchObject({ sessionIds: [first.body.id], sessionId: first.body.id, count: 2 });
    expect(origami[0].items.map((item) => item.format).sort()).toEqual(['png', 'svg']);
    expect(after.filter((group) => group.sessionTitle === 'Cranes')).toEqual([
      expect.objectContaining({ sessionIds: [second.body.id], count: 1 }),
    ]);
  });
});

describe('item 5: defaults and /api/providers', () => {
  it('an unknown video target answers INVALID_VIDEO_MODEL, not the image-model code', async () => {
    const answer = await call('PUT', '/api/defaults', { video: 'alpha/alpha-image' });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({
      code: 'INVALID_VIDEO_MODEL',
      details: { field: 'video', valid: expect.arrayContaining(['alpha-video-1.5']) },
    });
    expect((await call('PUT', '/api/defaults', { video: 'alpha/nope' })).body.error?.code).toBe('INVALID_VIDEO_MODEL');
  });

  it("delta's size rule is its contract's (512-2048, multiples of 8); the common rule (16) stays elsewhere", async () => {
    const delta = await call<GenerationResult>('POST', '/api/generate', { prompt: 'a kite', provider: 'delta', size: '1000x1000' });
    expect(delta.status, JSON.stringify(delta.body)).toBe(200);
    expect(delta.body.images[0]).toMatchObject({ width: 1000, height: 1000 });
    const oauth = await call('POST', '/api/generate', { prompt: 'a kite', provider: 'oauth', size: '1000x1000' });
    expect(oauth.status).toBe(400);
    expect(oauth.body.error).toMatchObject({ code: 'BAD_REQUEST', details: { field: 'size' } });
    expect(oauth.body.error?.message).toMatch(/multiples of 16/);
    const shape = await call('POST', '/api/generate', { prompt: 'a kite', provider: 'delta', size: 'big' });
    expect(shape.status).toBe(400);
  });

  it('lists the runtime ports: each lane upstream origin and port, and the studio own', async () => {
    const answer = await call<{
      providers: { id: string; upstream: string | null; runtime: { origin: string; port: number } | null }[];
      studio: { origin: string; port: number };
      auto: { lane: string | null };
    }>('GET', '/api/providers');
    expect(answer.status).toBe(200);
    const port = Number(new URL(studio.url).port);
    expect(answer.body.studio).toEqual({ origin: `http://127.0.0.1:${port}`, port });
    const gamma = answer.body.providers.find((provider) => provider.id === 'gamma');
    const upstream = new URL(gamma?.upstream as string);
    expect(gamma?.runtime).toEqual({ origin: upstream.origin, port: Number(upstream.port) });
    expect(answer.body.providers.find((provider) => provider.id === 'zeta')).toBeDefined();
    expect(answer.body.auto.lane).toBe('oauth');
  });
});

describe('item 12: human messages for every 400', () => {
  it('says what is wrong in words, never the validator text, and lists valid values', async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/api/generate', {}, /^prompt: is required$/],
      ['POST', '/api/generate', { prompt: 42 }, /^prompt: must be text, not number$/],
      ['POST', '/api/generate', { prompt: 'x', colour: 'red' }, /^unknown field colour \(valid: .*prompt.*\)$/],
      ['POST', '/api/generate', { prompt: 'x', quality: 'best' }, /^quality: must be one of low, medium, high$/],
      ['POST', '/api/generate/multimode', { prompt: 'x', n: 99 }, /^n: must be at most 8$/],
      [
        'POST',
        '/api/generate',
        { prompt: 'x', provider: 'epsilon', options: { steps: 500 } },
        /^options\.steps: must be a whole number from 1 to 50$/,
      ],
      ['POST', '/api/generate', { prompt: 'x', model: 'lang-99' }, /^Unknown model "lang-99" \(valid: .*lang-6-luna.*\)\.$/],
      [
        'POST',
        '/api/assets/derived?kind=vector-svg&source=x.png&preset=nope',
        undefined,
        /^Unknown tracing preset "nope" \(valid: general, poster, photo, line-art\)\.$/,
      ],
      ['POST', '/api/sessions', { title: '' }, /^title: /],
    ];
    for (const [method, path, body, message] of cases) {
      const answer = await call(method, path, body);
      expect(answer.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.error?.message, `${path} ${JSON.stringify(body)}`).toMatch(message);
      expect(answer.body.error?.message).not.toMatch(/Too small|Too big|Invalid input|expected string|Unrecognized key/);
    }
  });
});

describe('item 11: a cooldown says until when and why, and auto says it moved (last: it benches oauth)', () => {
  interface Providers {
    providers: { id: string; state: string; until?: string; cooldown?: { until: string; source: string; code: string } }[];
    auto: { lane: string | null; moved: boolean; skipped: Record<string, string> };
  }

  it('a vendor Retry-After sets the cooldown (source vendor) on the card data', async () => {
    const limited = await call('POST', '/api/generate', { prompt: 'a kite [sim:ratelimit]', provider: 'gamma' });
    expect(limited.status).toBe(429);
    const gamma = (await call<Providers>('GET', '/api/providers')).body.providers.find((provider) => provider.id === 'gamma');
    expect(gamma).toMatchObject({ state: 'cooling_down', cooldown: { source: 'vendor', code: limited.body.error?.code } });
    expect(gamma?.cooldown?.until).toBe(gamma?.until);
  });

  it('when the first lane of the order rests, /api/providers and the result say auto moved, and why', async () => {
    const limited = await call('POST', '/api/generate', { prompt: 'too much [sim:quota=600]', provider: 'oauth' });
    expect(limited.status).toBe(429);
    const providers = (await call<Providers>('GET', '/api/providers')).body;
    expect(providers.auto.moved).toBe(true);
    expect(providers.auto.lane).not.toBe('oauth');
    expect(providers.auto.skipped.oauth).toMatch(/Ready again at/);
    const moved = await call<GenerationResult>('POST', '/api/generate', { prompt: 'a kite' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect(moved.body.provider).toBe(providers.auto.lane);
    expect(moved.body.routing?.skipped.oauth).toMatch(/RATE_LIMITED/);
  });
});

describe('issue 46, item 10: the version the spec implies', () => {
  it('GET /api/capabilities and /api/health report at least 3.0.0 (the spec: MCP lanes exist since 3.0.0)', async () => {
    const atLeast3 = (version: string) => Number(version.split('.')[0]) >= 3;
    const capabilities = await call<{ version: string }>('GET', '/api/capabilities');
    expect(capabilities.body.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(atLeast3(capabilities.body.version), capabilities.body.version).toBe(true);
    const health = await call<{ version: string }>('GET', '/api/health');
    expect(health.body.version).toBe(capabilities.body.version);
  });
});

describe('issue 46, item 10: a lane’s own control at the top level', () => {
  it('is read as that lane’s option when the body names the lane; options still work; auto and a clash stay refused', async () => {
    const epsilon = await call<{ settings: Record<string, unknown> }>('POST', '/api/generate', {
      prompt: 'a top-level sampler',
      provider: 'epsilon',
      sampler: 'k_euler',
      steps: 12,
    });
    expect(epsilon.status, JSON.stringify(epsilon.body)).toBe(200);
    expect(epsilon.body.settings).toMatchObject({ sampler: 'k_euler', steps: 12 });
    const beta = await call<{ settings: Record<string, unknown> }>('POST', '/api/generate', {
      prompt: 'a top-level ratio',
      provider: 'beta-api',
      aspectRatio: '16:9',
    });
    expect(beta.status, JSON.stringify(beta.body)).toBe(200);
    expect(beta.body.settings).toMatchObject({ aspectRatio: '16:9' });
    const inOptions = await call('POST', '/api/generate', {
      prompt: 'options as before',
      provider: 'epsilon',
      options: { sampler: 'k_euler' },
    });
    expect(inOptions.status).toBe(200);
    const auto = await call('POST', '/api/generate', { prompt: 'which lane?', sampler: 'k_euler' });
    expect(auto.status).toBe(400);
    expect(auto.body.error?.message).toMatch(/sampler/);
    const clash = await call('POST', '/api/generate', {
      prompt: 'twice',
      provider: 'epsilon',
      sampler: 'k_euler',
      options: { sampler: 'k_dpmpp_2m' },
    });
    expect(clash.status).toBe(400);
    const wrongValue = await call('POST', '/api/generate', { prompt: 'a bad sampler', provider: 'epsilon', sampler: 'k_nope' });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.error?.details?.field).toBe('options.sampler');
  });
});
