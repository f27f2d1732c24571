import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createOauthSession,
  startResponsesSimulator,
  type OauthAuthFile,
  type ResponsesSimulator,
} from '../../src/sim/responses-simulator.js';
import { oauthHeaders, oauthImageBody } from './responses-fixtures.js';
import { postJson, readSse } from './sse-client.js';

let sim: ResponsesSimulator;
let session: OauthAuthFile;
let responsesUrl: string;

beforeAll(async () => {
  sim = await startResponsesSimulator({ account: { planType: 'pro' } });
  session = createOauthSession(sim);
  responsesUrl = `${sim.backendBaseUrl}/codex/responses`;
});

afterAll(async () => {
  await sim.close();
});

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
const refresh = (refreshToken: string) =>
  postJson(`${sim.issuerUrl}/oauth/token`, {
    client_id: 'app_EMoamEEZ73f0CkXaXp7hrann',
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
  });

describe('oauth session file', () => {
  it('matches the CLI auth.json layout with JWT tokens carrying exp and the account claim', () => {
    expect(Object.keys(session).sort()).toEqual(['OPENAI_API_KEY', 'auth_mode', 'last_refresh', 'tokens']);
    expect(session.auth_mode).toBe('chatgpt');
    expect(session.OPENAI_API_KEY).toBeNull();
    expect(Object.keys(session.tokens).sort()).toEqual(['access_token', 'account_id', 'id_token', 'refresh_token']);
    const access = claimsOf(session.tokens.access_token);
    expect(access.exp).toBeGreaterThan(Date.now() / 1000);
    expect(access['https://api.openai.com/auth']).toMatchObject({
      chatgpt_account_id: session.tokens.account_id,
      chatgpt_plan_type: 'pro',
    });
    const id = claimsOf(session.tokens.id_token);
    expect(id).toMatchObject({ email: 'demo@sim.local' });
    expect(new Date(session.last_refresh).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('an expired session has an expired access token and an old last_refresh', () => {
    const expired = createOauthSession(sim, { expired: true });
    expect(claimsOf(expired.tokens.access_token).exp).toBeLessThan(Date.now() / 1000);
    expect(Date.now() - new Date(expired.last_refresh).getTime()).toBeGreaterThan(8 * 24 * 3600 * 1000);
  });
});

describe('oauth backend: POST /backend-api/codex/responses', () => {
  it('streams the image with codex.rate_limits first and x-codex usage headers', async () => {
    const response = await postJson(responsesUrl, oauthImageBody({ tool: { partial_images: 2 } }), oauthHeaders(session));
    expect(response.status).toBe(200);
    expect(response.headers.get('x-codex-primary-used-percent')).toBe('12.5');
    expect(response.headers.get('x-codex-primary-window-minutes')).toBe('300');
    expect(Number(response.headers.get('x-codex-secondary-window-minutes'))).toBeGreaterThan(0);
    expect(response.headers.get('x-codex-credits-has-credits')).toBe('true');
    const result = await readSse(response);
    expect(result.events[0].event).toBe('codex.rate_limits');
    expect(result.events[0].data).toMatchObject({
      type: 'codex.rate_limits',
      plan_type: 'pro',
      rate_limits: { primary: { used_percent: 12.5, window_minutes: 300 } },
    });
    const sequenced = result.events.slice(1);
    expect(sequenced.map((event) => event.data?.sequence_number)).toEqual(sequenced.map((_, index) => index));
    expect(sequenced[0].event).toBe('response.created');
    expect(sequenced.filter((event) => event.event === 'response.image_generation_call.partial_image')).toHaveLength(2);
    const completed = sequenced.at(-1)!;
    expect(completed.event).toBe('response.completed');
    const response0 = completed.data!.response as { store: boolean; instructions: string; output: { result: string }[] };
    expect(response0.store).toBe(false);
    expect(response0.instructions).toContain('image assistant');
    const image = await sharp(Buffer.from(response0.output[0].result, 'base64')).metadata();
    expect([image.format, image.width, image.height]).toEqual(['png', 256, 256]);
  });

  it.each([
    [{ stream: false }, 'Stream must be set to true'],
    [{ stream: undefined }, 'Stream must be set to true'],
    [{ store: true }, 'Store must be set to false'],
    [{ store: undefined }, 'Store must be set to false'],
    [{ instructions: undefined }, 'Instructions are required'],
  ])('enforces the body constraint %j', async (override, detail) => {
    const response = await postJson(responsesUrl, { ...oauthImageBody(), ...override }, oauthHeaders(session));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ detail });
  });

  it('answers body problems as detail and refuses api-only models', async () => {
    const tools = await postJson(responsesUrl, { ...oauthImageBody(), tools: [{ type: 'function' }] }, oauthHeaders(session));
    expect(tools.status).toBe(400);
    expect(await tools.json()).toEqual({ detail: "Missing required parameter: 'tools[0].name'." });
    const model = await postJson(responsesUrl, oauthImageBody({ model: 'lang-5.6-luna' }), oauthHeaders(session));
    expect(model.status).toBe(400);
    expect(((await model.json()) as { detail: string }).detail).toContain("'lang-5.6-luna' model is not supported");
    const previous = await postJson(responsesUrl, { ...oauthImageBody(), previous_response_id: 'resp_1' }, oauthHeaders(session));
    expect(previous.status).toBe(400);
  });

  it('accepts every oauth chat model', async () => {
    for (const model of ['lang-6-luna', 'lang-6-sol', 'lang-6-astra']) {
      const result = await readSse(await postJson(responsesUrl, oauthImageBody({ model, toolChoice: 'none' }), oauthHeaders(session)));
      expect(result.events.at(-1)?.event).toBe('response.completed');
    }
  });

  it('requires a minted, unexpired access token and the account header', async () => {
    const body = oauthImageBody();
    const none = await postJson(responsesUrl, body, { 'chatgpt-account-id': session.tokens.account_id });
    expect(none.status).toBe(401);
    const forged = await postJson(responsesUrl, body, {
      ...oauthHeaders(session),
      authorization: `Bearer ${session.tokens.access_token.slice(0, -4)}AAAA`,
    });
    expect(forged.status).toBe(401);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('token_invalidated');
    const expired = createOauthSession(sim, { expired: true });
    const stale = await postJson(responsesUrl, body, oauthHeaders(expired));
    expect(stale.status).toBe(401);
    expect(await stale.json()).toEqual({
      error: {
        message: 'Provided authentication token is expired. Please try signing in again.',
        type: 'invalid_request_error',
        code: 'token_expired',
        param: null,
      },
    });
    const { 'chatgpt-account-id': _omitted, ...withoutAccount } = oauthHeaders(session);
    expect((await postJson(responsesUrl, body, withoutAccount)).status).toBe(400);
    expect((await postJson(responsesUrl, body, { ...oauthHeaders(session), 'chatgpt-account-id': 'someone-else' })).status).toBe(403);
  });
});

describe('oauth issuer: POST /oauth/token', () => {
  it('rotates refresh tokens: the new access token works, reusing the old refresh token fails', async () => {
    const start = createOauthSession(sim, { expired: true });
    const first = await refresh(start.tokens.refresh_token);
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as Record<string, string | number>;
    expect(tokens).toMatchObject({
      id_token: expect.any(String),
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_in: expect.any(Number),
    });
    expect(tokens.refresh_token).not.toBe(start.tokens.refresh_token);
    const renewed = { ...start, tokens: { ...start.tokens, access_token: String(tokens.access_token) } };
    const call = await postJson(responsesUrl, oauthImageBody({ toolChoice: 'none' }), oauthHeaders(renewed));
    expect(call.status).toBe(200);
    await call.arrayBuffer();

    const reused = await refresh(start.tokens.refresh_token);
    expect(reused.status).toBe(401);
    expect(((await reused.json()) as { error: { code: string } }).error.code).toBe('refresh_token_reused');
    const second = await refresh(String(tokens.refresh_token));
    expect(second.status).toBe(200);
  });

  it('fails an expired or unknown refresh token permanently', async () => {
    const expired = createOauthSession(sim, { expired: true, refreshExpired: true });
    const answer = await refresh(expired.tokens.refresh_token);
    expect(answer.status).toBe(401);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('refresh_token_expired');
    const unknown = await refresh('rt_unknown');
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('refresh_token_invalidated');
  });

  it('accepts the form-encoded grant too, and refuses other grants', async () => {
    const fresh = createOauthSession(sim);
    const form = await fetch(`${sim.issuerUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: fresh.tokens.refresh_token,
        client_id: 'x',
        scope: 'openid profile email',
      }),
    });
    expect(form.status).toBe(200);
    const other = await postJson(`${sim.issuerUrl}/oauth/token`, { grant_type: 'password' });
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('unsupported_grant_type');
    expect(JSON.stringify(sim.simulator.requests({ route: 'POST /oauth/token' }))).not.toContain(fresh.tokens.refresh_token);
  });

  it('exchanges a one-time authorization code with PKCE', async () => {
    const verifier = 'verifier-0123456789-abcdefghijklmnopqrstuvwxyz';
    const code = sim.tokens.issueAuthorizationCode(sim.account, createHash('sha256').update(verifier).digest('base64url'));
    const wrong = await postJson(`${sim.issuerUrl}/oauth/token`, { grant_type: 'authorization_code', code, code_verifier: 'nope' });
    expect(wrong.status).toBe(400);
    const code2 = sim.tokens.issueAuthorizationCode(sim.account, createHash('sha256').update(verifier).digest('base64url'));
    const right = await postJson(`${sim.issuerUrl}/oauth/token`, {
      grant_type: 'authorization_code',
      code: code2,
      code_verifier: verifier,
    });
    expect(right.status).toBe(200);
    const again = await postJson(`${sim.issuerUrl}/oauth/token`, {
      grant_type: 'authorization_code',
      code: code2,
      code_verifier: verifier,
    });
    expect(again.status).toBe(400);
  });

  it('revokes access and refresh tokens', async () => {
    const doomed = createOauthSession(sim);
    expect((await postJson(`${sim.issuerUrl}/oauth/revoke`, { token: doomed.tokens.access_token })).status).toBe(200);
    const call = await postJson(responsesUrl, oauthImageBody(), oauthHeaders(doomed));
    expect(call.status).toBe(401);
    expect(((await call.json()) as { error: { code: string } }).error.code).toBe('token_invalidated');
    await postJson(`${sim.issuerUrl}/oauth/revoke`, { token: doomed.tokens.refresh_token });
    const refreshed = await refresh(doomed.tokens.refresh_token);
    expect(((await refreshed.json()) as { error: { code: string } }).error.code).toBe('refresh_token_invalidated');
  });
});

describe('oauth backend: usage and images', () => {
  it('reports usage windows at /wham/usage', async () => {
    const response = await fetch(`${sim.backendBaseUrl}/wham/usage`, { headers: oauthHeaders(session) });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      email: 'demo@sim.local',
      plan_type: 'pro',
      rate_limit: { primary_window: { used_percent: 12.5, limit_window_seconds: 18000 } },
    });
    expect((await fetch(`${sim.backendBaseUrl}/wham/usage`)).status).toBe(401);
  });

  it('generates and edits images as JSON', async () => {
    const generated = await postJson(
      `${sim.backendBaseUrl}/codex/images/generations`,
      { prompt: 'a green frog', model: 'lang-image-2', size: '256x256', quality: 'low', n: 1 },
      oauthHeaders(session),
    );
    expect(generated.status).toBe(200);
    const body = (await generated.json()) as { data: { b64_json: string }[]; size: string; output_format: string; usage: unknown };
    expect(body).toMatchObject({ size: '256x256', output_format: 'png', usage: expect.any(Object) });
    const source = `data:image/png;base64,${body.data[0].b64_json}`;
    const edited = await postJson(
      `${sim.backendBaseUrl}/codex/images/edits`,
      { images: [{ image_url: source }], prompt: 'add a crown', model: 'lang-image-2', size: '256x256' },
      oauthHeaders(session),
    );
    expect(edited.status).toBe(200);
    const editBody = (await edited.json()) as { data: { b64_json: string }[] };
    expect((await sharp(Buffer.from(editBody.data[0].b64_json, 'base64')).metadata()).width).toBe(256);
    const missing = await postJson(`${sim.backendBaseUrl}/codex/images/edits`, { prompt: 'x' }, oauthHeaders(session));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ detail: "Missing required parameter: 'images'." });
  });

  it('moves the usage windows when configured and refuses once they are used up', async () => {
    const busy = await startResponsesSimulator({ usage: { primaryUsedPercent: 98, percentPerRequest: 2 } });
    try {
      const own = createOauthSession(busy);
      const first = await postJson(`${busy.backendBaseUrl}/codex/responses`, oauthImageBody({ toolChoice: 'none' }), oauthHeaders(own));
      expect(first.headers.get('x-codex-primary-used-percent')).toBe('98');
      await first.arrayBuffer();
      const second = await postJson(`${busy.backendBaseUrl}/codex/responses`, oauthImageBody({ toolChoice: 'none' }), oauthHeaders(own));
      expect(second.status).toBe(429);
      expect(((await second.json()) as { error: { type: string } }).error.type).toBe('usage_limit_reached');
    } finally {
      await busy.close();
    }
  });
});
