import { readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { startStudio } from '../../src/studio/main.js';
import { collectEvents, startRig, type Rig } from './rig.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// Every upstream failure the api and oauth lanes can meet, triggered over
// HTTP against the simulator, and the code each one answers. None of them may
// leave an asset (or a temp file) behind.

interface ErrorAnswer {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

async function expectError(response: Response, status: number, code: string): Promise<ErrorAnswer> {
  const body = (await response.json()) as ErrorAnswer;
  expect({ status: response.status, code: body.error.code }).toEqual({ status, code });
  return body;
}

/** Files under generated/ (thumbnails included), temp files included. */
function generatedFiles(rig: Rig): string[] {
  const dir = rig.studio.ctx.paths.generatedDir;
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

let sim: ResponsesSimulator;
let api: Rig;
let oauth: Rig;
beforeAll(async () => {
  sim = await startResponsesSimulator();
  api = await startRig({ sim });
  oauth = await startRig({ sim, oauth: {}, apiKey: false });
});
afterAll(async () => {
  // No failure left an asset, a thumbnail, a temp file or a history row.
  for (const rig of [api, oauth]) {
    expect(generatedFiles(rig)).toEqual([]);
    expect(embeddedDatabase(rig.studio.ctx).prepare('SELECT count(*) AS n FROM assets').get()).toEqual({ n: 0 });
  }
  await api?.stop();
  await oauth?.stop();
  await sim?.close();
});

const generate = (rig: Rig, prompt: string, extra: Record<string, unknown> = {}) =>
  rig.post('/api/generate', { prompt, provider: rig === api ? 'api' : 'oauth', ...extra });

describe('api lane errors', () => {
  it('API_KEY_REQUIRED: a server without demo and without a key', async () => {
    const bare = await startRig({ sim, apiKey: false });
    try {
      const body = await expectError(await generate(bare, 'hello', { provider: 'api' }), 401, 'API_KEY_REQUIRED');
      expect(body.error.details).toMatchObject({ env: 'OMNI_API_KEY' });
    } finally {
      await bare.stop();
    }
  });

  it('AUTH_API_KEY_INVALID: a refused key (401) and an exhausted one (insufficient_quota), the key never echoed', async () => {
    const wrong = await startRig({ sim, apiKey: 'sk-wrong-key-0123456789' });
    try {
      const body = await expectError(await generate(wrong, 'hello', { provider: 'api' }), 401, 'AUTH_API_KEY_INVALID');
      expect(JSON.stringify(body)).not.toContain('sk-wrong-key-0123456789');
    } finally {
      await wrong.stop();
    }
    await expectError(await generate(api, 'hello [sim:quota]'), 401, 'AUTH_API_KEY_INVALID');
    await expectError(await generate(api, 'hello [sim:unauthorized]'), 401, 'AUTH_API_KEY_INVALID');
  });

  it('RATE_LIMITED: 429 with Retry-After, and the in-stream rate-limit error', async () => {
    const response = await generate(api, 'busy [sim:ratelimit=3000]');
    const body = await expectError(response, 429, 'RATE_LIMITED');
    expect(response.headers.get('retry-after')).toBe('3');
    expect(body.error.details).toMatchObject({ retryAfterSeconds: 3, upstreamStatus: 429 });

    const streamed = await generate(api, 'busy later [sim:ratelimit-stream=2500]');
    await expectError(streamed, 429, 'RATE_LIMITED');
    expect(streamed.headers.get('retry-after')).toBe('3');
  });

  it('MODERATION_REFUSED: moderation_blocked as an HTTP answer, mid-stream, and an incomplete response', async () => {
    await expectError(await generate(api, 'blocked [sim:moderation]'), 422, 'MODERATION_REFUSED');
    await expectError(await generate(api, 'blocked later [sim:moderation-stream]'), 422, 'MODERATION_REFUSED');
    await expectError(await generate(api, 'cut short [sim:incomplete]'), 422, 'MODERATION_REFUSED');
  });

  it('SAFETY_REFUSAL: a policy refusal as an HTTP answer, as response.failed, and a planner that only talks', async () => {
    await expectError(await generate(api, 'refused [sim:safety]'), 422, 'SAFETY_REFUSAL');
    await expectError(await generate(api, 'refused later [sim:safety-stream]'), 422, 'SAFETY_REFUSAL');
    const talk = await expectError(await generate(api, 'just chat [sim:no-image]'), 422, 'SAFETY_REFUSAL');
    expect(talk.error.details?.upstreamText).toBeTypeOf('string');
  });

  it('UPSTREAM_FAILED (5xx) and UPSTREAM_TIMEOUT (504)', async () => {
    await expectError(await generate(api, 'boom [sim:server-error]'), 502, 'UPSTREAM_FAILED');
    await expectError(await generate(api, 'busy [sim:overloaded]'), 502, 'UPSTREAM_FAILED');
    sim.simulator.fault('POST /v1/responses', { status: 504 });
    await expectError(await generate(api, 'gateway'), 504, 'UPSTREAM_TIMEOUT');
  });

  it('UPSTREAM_TIMEOUT: our own budget (SVC_API_TIMEOUT_MS, its own variable) aborts the upstream call', async () => {
    const impatient = await startRig({ sim, env: { SVC_API_TIMEOUT_MS: '300' } });
    try {
      const body = await expectError(await generate(impatient, 'stuck [sim:stall=10000]', { provider: 'api' }), 504, 'UPSTREAM_TIMEOUT');
      expect(body.error.details).toMatchObject({ timeoutMs: 300 });
      const upstream = await sim.simulator.waitForRequest((entry) => JSON.stringify(entry.body).includes('stuck ['));
      expect(upstream.outcome).toBe('client-aborted');
      expect(generatedFiles(impatient)).toEqual([]);
    } finally {
      await impatient.stop();
    }
  });

  it('NETWORK_FAILED: mid-stream disconnect, connection reset, connection refused', async () => {
    const cut = await expectError(await generate(api, 'cut [sim:disconnect]'), 502, 'NETWORK_FAILED');
    expect(cut.error.details).toMatchObject({ stage: 'stream' });
    sim.simulator.fault('POST /v1/responses', { disconnectAfterBytes: 0 });
    await expectError(await generate(api, 'reset'), 502, 'NETWORK_FAILED');
    sim.simulator.fault('POST /v1/responses', { disconnectAfterEvents: 4 });
    await expectError(await generate(api, 'cut after four events'), 502, 'NETWORK_FAILED');

    // A port nobody listens on.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const home = join(api.home, 'refused');
    const studio = await startStudio({
      env: { SVC_HOME: home, PATH: process.env.PATH, OMNI_API_KEY: 'sim-omni-key' },
      port: 0,
      descriptor: false,
      upstreams: { api: `http://127.0.0.1:${port}/v1` },
    });
    try {
      const response = await fetch(`${studio.url}/api/generate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'anyone?', provider: 'api' }),
      });
      const body = await expectError(response, 502, 'NETWORK_FAILED');
      expect(body.error.details).toMatchObject({ stage: 'connect', reason: 'ECONNREFUSED' });
    } finally {
      await studio.close();
    }
  });

  it('IMAGE_MODEL_UNSUPPORTED: a model our catalog knows but the upstream does not offer', async () => {
    const narrow = await startResponsesSimulator({ apiChatModels: ['lang-5.6-luna'] });
    const rig = await startRig({ sim: narrow });
    try {
      const body = await expectError(
        await generate(rig, 'hello', { provider: 'api', model: 'lang-5.6-sol' }),
        400,
        'IMAGE_MODEL_UNSUPPORTED',
      );
      expect(body.error.details).toMatchObject({ upstreamStatus: 404, upstreamCode: 'model_not_found' });
    } finally {
      await rig.stop();
      await narrow.close();
    }
  });

  it('tolerates a garbled event and still delivers the image', async () => {
    // Saved and then removed again, so the no-leftovers check at the end stays meaningful.
    const response = await generate(api, 'garbled frame [sim:malformed]');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { images: Array<{ filename: string }> };
    expect(body.images).toHaveLength(1);
    // The thumbnail follows the answer off the request path: let it land before cleaning up.
    await api.studio.ctx.derived.idle();
    embeddedDatabase(api.studio.ctx).prepare('DELETE FROM assets').run();
    const { rmSync } = await import('node:fs');
    for (const file of generatedFiles(api)) rmSync(file);
  });

  it('sends the error as the last event of a per-request stream', async () => {
    const streamed = await api.post(
      '/api/generate',
      { prompt: 'blocked [sim:moderation]', provider: 'api', requestId: 'sse-error-2' },
      { accept: 'text/event-stream' },
    );
    expect(streamed.status).toBe(200);
    const events = await collectEvents(streamed);
    expect(events.at(-1)).toMatchObject({ event: 'error', requestId: 'sse-error-2', error: { code: 'MODERATION_REFUSED' } });
  });
});

describe('oauth lane errors', () => {
  it('OAUTH_UNAVAILABLE: no session file, or one without chat tokens', async () => {
    const none = await startRig({ sim, apiKey: false });
    try {
      await expectError(await generate(none, 'hello', { provider: 'oauth' }), 401, 'OAUTH_UNAVAILABLE');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(none.authFile, JSON.stringify({ auth_mode: 'apikey', OPENAI_API_KEY: 'sk-x', tokens: null }));
      await expectError(await generate(none, 'hello', { provider: 'oauth' }), 401, 'OAUTH_UNAVAILABLE');
      // `auto` with no lane ready names every lane it tried.
      const auto = await expectError(await generate(none, 'hello', { provider: 'auto' }), 503, 'NO_LANE_READY');
      expect(Object.keys(auto.error.details?.lanes as object)).toEqual(expect.arrayContaining(['oauth', 'api']));
      // The remedy names what would make a lane that can take the request ready.
      expect(auto.error.message).toContain('sign in with the chat CLI');
      expect(auto.error.message).toContain('set OMNI_API_KEY');
      // A model only the alpha lanes offer: the remedies are theirs, not the chat sign-in.
      const alpha = await expectError(await generate(none, 'hello', { provider: 'auto', model: 'alpha-image' }), 503, 'NO_LANE_READY');
      expect(alpha.error.message).toContain('run `svc alpha login`, or set ALPHA_API_KEY');
      expect(alpha.error.message).not.toContain('chat');
      expect(Object.keys(alpha.error.details?.lanes as object)).toEqual(expect.arrayContaining(['alpha', 'alpha-api']));
      // An unknown model is the client's mistake, whatever is signed in.
      const unknown = await expectError(await generate(none, 'hello', { provider: 'auto', model: 'lang-99' }), 400, 'INVALID_IMAGE_MODEL');
      expect(unknown.error.details?.valid).toContain('lang-6-luna');
    } finally {
      await none.stop();
    }
  });

  it('AUTH_CHATGPT_EXPIRED: the refresh token is dead too, or the backend keeps refusing after a refresh', async () => {
    const dead = await startRig({ sim, oauth: { expired: true, refreshExpired: true }, apiKey: false });
    try {
      await expectError(await generate(dead, 'hello', { provider: 'oauth' }), 401, 'AUTH_CHATGPT_EXPIRED');
    } finally {
      await dead.stop();
    }
    sim.simulator.clearRequests();
    await expectError(await generate(oauth, 'hello [sim:token-expired]'), 401, 'AUTH_CHATGPT_EXPIRED');
    // One refresh, one retry: never more.
    expect(sim.simulator.requests({ route: 'POST /oauth/token' })).toHaveLength(1);
    expect(sim.simulator.requests({ route: 'POST /backend-api/codex/responses' })).toHaveLength(2);
  });

  it('SAFETY_REFUSAL (cyber_policy), RATE_LIMITED (usage limit, Retry-After), OAUTH_UNAVAILABLE (plan without images)', async () => {
    await expectError(await generate(oauth, 'refused [sim:safety]'), 422, 'SAFETY_REFUSAL');
    const limited = await generate(oauth, 'too much [sim:quota=600]');
    await expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('600');
    await expectError(await generate(oauth, 'not on my plan [sim:usage-not-included]'), 401, 'OAUTH_UNAVAILABLE');
    await expectError(await generate(oauth, 'boom [sim:server-error]'), 502, 'UPSTREAM_FAILED');
    await expectError(await generate(oauth, 'cut [sim:disconnect]'), 502, 'NETWORK_FAILED');
  });
});
