import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capabilitiesBody, LANE_IDS } from '../../src/studio/api/index.js';
import { MIGRATIONS } from '../../src/studio/store/migrations.js';
import { readDescriptor } from '../../src/studio/descriptor.js';
import { startStudio } from '../../src/studio/main.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { rawRequest } from '../helpers/raw-http.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// Every lane and model id the spec names; the catalog must list them all.
const SPEC_MODELS = [
  'lang-6-luna',
  'lang-6-sol',
  'lang-6-astra',
  'lang-5.6-luna',
  'lang-5.6-terra',
  'lang-5.6-sol',
  'lang-5.5',
  'lang-5.4',
  'lang-5.4-mini',
  'alpha-image',
  'alpha-image-quality',
  'alpha-image-2.0',
  'alpha-video',
  'alpha-video-1.5',
  'nano-fruit-2',
  'nano-fruit-pro',
];
const SPEC_LANES = ['auto', 'oauth', 'api', 'alpha', 'alpha-api', 'beta-api', 'cligen', 'gamma', 'delta', 'epsilon', 'flow', 'zeta', 'eta'];

describe('studio foundation over HTTP', () => {
  let studio: TestStudio;
  beforeAll(async () => {
    studio = await startTestStudio();
  });
  afterAll(async () => {
    await studio.stop();
  });

  it('answers /api/health with version and alpha auth', async () => {
    const response = await studio.request('/api/health');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ ok: true, version: studio.ctx.version, demo: false, alpha: { auth: 'none' } });
  });

  it('reports alpha auth as oauth once the session file holds an access token', async () => {
    mkdirSync(join(studio.home, 'alpha'), { recursive: true });
    writeFileSync(join(studio.home, 'alpha', 'auth.json'), '{}');
    expect((await (await studio.request('/api/health')).json()).alpha).toEqual({ auth: 'none' });
    writeFileSync(join(studio.home, 'alpha', 'auth.json'), '{"accessToken":"at-1"}');
    expect((await (await studio.request('/api/health')).json()).alpha).toEqual({ auth: 'oauth' });
  });

  it('lists every lane and model of the spec in /api/capabilities', async () => {
    const body = await (await studio.request('/api/capabilities')).json();
    expect(body.version).toBe(studio.ctx.version);
    // The contract's schema describes the answer exactly.
    expect(capabilitiesBody.safeParse(body).error).toBeUndefined();
    expect(body.providers.map((provider: { id: string }) => provider.id)).toEqual(SPEC_LANES);
    const ids = body.models.map((model: { id: string }) => model.id);
    for (const id of SPEC_MODELS) expect(ids).toContain(id);
    expect(body.aliases['alpha-video-1.5-preview']).toBe('alpha-video-1.5');
    expect(body.values.quality).toEqual(['low', 'medium', 'high']);
    expect(body.values.moderation).toEqual(['auto', 'low']);
    expect(body.values.reasoningEffort).toEqual(['none', 'low', 'medium', 'high', 'xhigh']);
    expect(body.values.betaAspectRatios).toHaveLength(10);
    expect(body.values.betaResolutionTiers).toEqual(['512px', '1K', '2K', '4K']);
    expect(body.values.alphaPlanners).toEqual(['alpha-4.3', 'alpha-4.5', 'alpha-4.6']);
    expect(body.limits).toMatchObject({
      alphaInputImages: 3,
      cligenReferences: 3,
      gammaReferences: 10,
      deltaReferences: 1,
      epsilonReferences: 0,
      betaGenerationTimeoutSeconds: 120,
      cligenProcessTimeoutSeconds: 360,
    });
  });

  it('reports every provider lane in /api/providers with a state and a reason', async () => {
    const body = await (await studio.request('/api/providers')).json();
    const ids = body.providers.map((provider: { id: string }) => provider.id);
    expect(ids).toEqual(LANE_IDS);
    for (const provider of body.providers) {
      expect(['ready', 'needs_credential', 'needs_binary', 'unreachable', 'unavailable', 'disconnected', 'locked']).toContain(
        provider.state,
      );
      expect(provider.reason.length).toBeGreaterThan(5);
    }
  });

  it('reports storage paths, sizes, counts and free disk', async () => {
    const body = await (await studio.request('/api/storage/status')).json();
    expect(body.paths.home).toBe(studio.home);
    expect(body.generated).toEqual({ bytes: 0, files: 0 });
    expect(body.database.bytes).toBeGreaterThan(0);
    expect(body.disk.freeBytes).toBeGreaterThan(0);
  });

  it('keeps the database in WAL mode at the newest schema version', () => {
    expect(embeddedDatabase(studio.ctx).pragma('journal_mode', { simple: true })).toBe('wal');
    expect(embeddedDatabase(studio.ctx).pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
  });

  it('answers an unknown route with 404 and the error shape', async () => {
    const response = await studio.request('/api/nope');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: { code: 'ROUTE_NOT_FOUND', message: 'No route GET /api/nope.' } });
  });

  it('answers router-level failures with the error shape', async () => {
    const long = await studio.request(`/api/history/${'a'.repeat(300)}.png`);
    expect(long.status).toBe(414);
    expect((await long.json()).error.code).toBe('URI_TOO_LONG');
    const badEncoding = await rawRequest(studio.url, { path: '/api/history/%E0%A4%A.png' });
    expect(badEncoding.status).toBe(400);
    expect(JSON.parse(badEncoding.body).error.code).toBe('BAD_REQUEST');
  });

  it('answers malformed JSON with 400 INVALID_JSON', async () => {
    const response = await studio.request('/api/defaults', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"model":',
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('INVALID_JSON');
  });

  it('answers an oversized body with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await rawRequest(studio.url, {
      method: 'PUT',
      path: '/api/defaults',
      headers: { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) },
      body: '{}',
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  describe('security', () => {
    it('refuses a foreign Host (DNS rebinding) with 403', async () => {
      const response = await rawRequest(studio.url, { path: '/api/health', headers: { host: 'evil.example:3333' } });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN_HOST');
    });

    it('accepts loopback host names', async () => {
      for (const host of [`localhost:${studio.port}`, `127.0.0.1:${studio.port}`, `[::1]:${studio.port}`, `app.localhost:${studio.port}`]) {
        const response = await rawRequest(studio.url, { path: '/api/health', headers: { host } });
        expect(response.status, host).toBe(200);
      }
    });

    it('refuses a cross-origin state-changing request with 403', async () => {
      const response = await rawRequest(studio.url, {
        method: 'PUT',
        path: '/api/defaults',
        headers: { host: `127.0.0.1:${studio.port}`, origin: 'https://evil.example', 'content-type': 'application/json' },
        body: '{"reasoning":"high"}',
      });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body).error.code).toBe('FORBIDDEN_ORIGIN');
      expect(studio.ctx.settings.get().defaults?.api?.reasoning).toBeUndefined();
    });

    it('refuses a cross-site request without Origin by Sec-Fetch-Site', async () => {
      const response = await rawRequest(studio.url, {
        method: 'POST',
        path: '/api/nope',
        headers: { host: `127.0.0.1:${studio.port}`, 'sec-fetch-site': 'cross-site' },
      });
      expect(response.status).toBe(403);
    });

    it('accepts a same-origin state-changing request', async () => {
      const response = await rawRequest(studio.url, {
        method: 'PUT',
        path: '/api/defaults',
        headers: { host: `127.0.0.1:${studio.port}`, origin: `http://127.0.0.1:${studio.port}`, 'content-type': 'application/json' },
        body: '{"reasoning":"medium"}',
      });
      expect(response.status).toBe(200);
    });
  });

  describe('defaults', () => {
    it('writes one model to both the oauth and api keys, atomically with mode 0600', async () => {
      const response = await studio.request('/api/defaults', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'lang-6-astra', reasoning: 'high' }),
      });
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body.oauth.model).toEqual({ value: 'lang-6-astra', source: 'config' });
      expect(body.api.model).toEqual({ value: 'lang-6-astra', source: 'config' });
      expect(body.api.reasoning).toEqual({ value: 'high', source: 'config' });
      const file = join(studio.home, 'config.json');
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.defaults.oauth).toEqual({ model: 'lang-6-astra', reasoning: 'high' });
      expect(saved.defaults.api).toEqual({ model: 'lang-6-astra', reasoning: 'high' });
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });

    it('takes an oauth-only model as the shared default, storing the nearest equivalent for api', async () => {
      const set = async (model: string) =>
        (
          await studio.request('/api/defaults', {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ model }),
          })
        ).json();
      const luna = await set('lang-6-luna');
      expect(luna.oauth.model).toEqual({ value: 'lang-6-luna', source: 'config' });
      expect(luna.api.model).toEqual({ value: 'lang-5.6-luna', source: 'config' });
      expect(luna.equivalents).toEqual({ api: { requested: 'lang-6-luna', stored: 'lang-5.6-luna' } });
      const sol = await set('lang-6-sol');
      expect(sol.api.model.value).toBe('lang-5.6-sol');
      // A model both lanes run needs no equivalent, and the answer says none.
      const astra = await set('lang-6-astra');
      expect(astra.api.model.value).toBe('lang-6-astra');
      expect(astra.equivalents).toBeUndefined();
    });

    it('sets a video target and resolves the compatibility alias', async () => {
      const body = await (
        await studio.request('/api/defaults', {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ video: 'alpha/alpha-video-1.5-preview' }),
        })
      ).json();
      expect(body.video.value).toEqual({ lane: 'alpha', model: 'alpha-video-1.5' });
    });

    it('refuses invalid values naming the valid ones', async () => {
      const bad = async (payload: object) =>
        (
          await studio.request('/api/defaults', {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(payload),
          })
        ).json();
      const reasoning = await bad({ reasoning: 'extreme' });
      expect(reasoning.error.code).toBe('INVALID_SETTING');
      expect(reasoning.error.details.valid).toEqual(['none', 'low', 'medium', 'high', 'xhigh']);
      const model = await bad({ model: 'lang-99' });
      expect(model.error.code).toBe('INVALID_IMAGE_MODEL');
      expect(model.error.details.valid).toContain('lang-5.6-luna');
      expect(model.error.details.valid).toContain('lang-6-astra');
      // A model of another lane family has no equivalent on oauth or api.
      const foreign = await bad({ model: 'nano-fruit-2' });
      expect(foreign.error.code).toBe('INVALID_IMAGE_MODEL');
      expect(foreign.error.details.valid).not.toContain('nano-fruit-2');
      expect((await bad({ video: 'gamma/some-model' })).error.code).toBe('VIDEO_PROVIDER_UNSUPPORTED');
      // The spec's own code for the lane that spawns a local CLI.
      const cligen = await bad({ video: 'cligen/nano-fruit-2' });
      expect(cligen.error.code).toBe('CLIGEN_VIDEO_UNSUPPORTED');
      // The lanes with a video model (issue 42: the MCP lanes' video models too).
      expect(cligen.error.details.valid).toEqual(['alpha', 'alpha-api', 'zeta', 'eta']);
      expect((await bad({ colour: 'red' })).error.code).toBe('INVALID_SETTING');
    });
  });
});

describe('api lane defaults from the environment', () => {
  it('uses the spec values when nothing is set and the environment over config.json', async () => {
    const plain = await startTestStudio();
    try {
      const body = await (await plain.request('/api/defaults')).json();
      expect(body.api.model).toEqual({ value: 'lang-5.6-luna', source: 'builtin' });
      expect(body.api.reasoning).toEqual({ value: 'low', source: 'builtin' });
      expect(body.api.size).toEqual({ value: '1024x1024', source: 'builtin' });
      expect(body.api.allowWebSearch).toEqual({ value: true, source: 'builtin' });
    } finally {
      await plain.stop();
    }
    const configured = await startTestStudio({
      env: {
        SVC_API_IMAGE_MODEL_DEFAULT: 'lang-5.6-sol',
        SVC_API_REASONING_EFFORT: 'xhigh',
        SVC_API_IMAGE_SIZE: '1536x1024',
        SVC_API_ALLOW_WEB_SEARCH: 'false',
      },
    });
    try {
      const body = await (await configured.request('/api/defaults')).json();
      expect(body.api.model).toEqual({ value: 'lang-5.6-sol', source: 'env' });
      expect(body.api.reasoning).toEqual({ value: 'xhigh', source: 'env' });
      expect(body.api.size).toEqual({ value: '1536x1024', source: 'env' });
      expect(body.api.allowWebSearch).toEqual({ value: false, source: 'env' });
    } finally {
      await configured.stop();
    }
  });
});

describe('serving', () => {
  it('binds the next free port when the preferred one is taken and advertises the real one', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as { port: number }).port;
    const home = makeTempHome();
    const studio = await startStudio({ port: taken, env: { SVC_HOME: home, PATH: process.env.PATH } });
    try {
      expect(studio.port).not.toBe(taken);
      expect(studio.port).toBeGreaterThan(taken);
      const descriptor = readDescriptor(join(home, 'server.json'));
      expect(descriptor).toMatchObject({
        backend: { url: studio.url },
        port: studio.port,
        pid: process.pid,
        version: studio.ctx.version,
        alpha: { auth: 'none' },
      });
      expect(typeof descriptor?.startedAt).toBe('string');
      expect((await fetch(`${descriptor?.backend.url}/api/health`)).status).toBe(200);
    } finally {
      await studio.close();
      blocker.close();
    }
    expect(readDescriptor(join(home, 'server.json'))).toBeUndefined();
  });

  it('leaves a descriptor that another server wrote in its place', async () => {
    const home = makeTempHome();
    const studio = await startStudio({ port: 0, env: { SVC_HOME: home, PATH: process.env.PATH } });
    const file = join(home, 'server.json');
    const other = { ...readDescriptor(file), pid: process.pid + 1 };
    writeFileSync(file, JSON.stringify(other));
    await studio.close();
    expect(readDescriptor(file)).toEqual(other);
  });

  it('refuses to start with an invalid SVC_API_* value, naming it', async () => {
    await expect(
      startStudio({ port: 0, descriptor: false, env: { SVC_HOME: makeTempHome(), SVC_API_REASONING_EFFORT: 'extreme' } }),
    ).rejects.toThrow(/Invalid configuration: SVC_API_REASONING_EFFORT/);
    await expect(
      startStudio({ port: 0, descriptor: false, env: { SVC_HOME: makeTempHome(), SVC_API_IMAGE_SIZE: '1000x1000' } }),
    ).rejects.toThrow(/SVC_API_IMAGE_SIZE/);
  });

  it('refuses to bind beyond loopback without a token', async () => {
    await expect(startStudio({ host: '0.0.0.0', port: 0, descriptor: false, env: { SVC_HOME: makeTempHome() } })).rejects.toThrow(
      /SVC_TOKEN/,
    );
  });

  it('checks the token on every request when one is set', async () => {
    const studio = await startTestStudio({ host: '0.0.0.0', token: 'test-token-123' });
    try {
      const url = `http://127.0.0.1:${studio.port}`;
      expect((await fetch(`${url}/api/health`)).status).toBe(401);
      expect((await fetch(`${url}/api/health`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
      const ok = await fetch(`${url}/api/health`, { headers: { authorization: 'Bearer test-token-123' } });
      expect(ok.status).toBe(200);
      const missing = await fetch(`${url}/api/nope`);
      expect((await missing.json()).error.code).toBe('TOKEN_REQUIRED');
    } finally {
      await studio.stop();
    }
  });
});
