import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALPHA_CLIENT_ID,
  ALPHA_ROUTES,
  createAlphaSession,
  startAlphaSimulator,
  TICKS_PER_USD,
  type AlphaSimulator,
} from '../../src/sim/alpha/index.js';
import { imageDataUrl } from './gamma-delta-epsilon-rig.js';

// The alpha vendor's simulator on its own, over HTTP, as a client written from
// the contracts would see it: the images endpoints, the planner with its search
// tool, both error shapes, the issuer (device code, refresh with rotation), the
// billing proxy and its control route.

let sim: AlphaSimulator;

beforeAll(async () => {
  sim = await startAlphaSimulator({ mediaTtlMs: 60_000, login: { intervalSeconds: 0.05 } });
});
afterAll(async () => {
  await sim?.close();
});

/** `credential` '' sends none. */
const call = (path: string, body: unknown, credential = sim.apiKey) =>
  fetch(`${sim.apiBaseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(credential ? { authorization: `Bearer ${credential}` } : {}) },
    body: JSON.stringify(body),
  });
const form = (url: string, fields: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

interface ImagesAnswer {
  data: { url?: string; b64_json?: string; revised_prompt?: string }[];
  usage: { cost_in_usd_ticks: number };
}

describe('images', () => {
  it('generations: a temporary JPEG link at the ratio and resolution asked, the cost in ticks', async () => {
    const response = await call('/images/generations', {
      model: 'alpha-image',
      prompt: 'a red lighthouse',
      aspect_ratio: '16:9',
      resolution: '2k',
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as ImagesAnswer;
    expect(body.usage.cost_in_usd_ticks).toBe(0.04 * TICKS_PER_USD);
    const link = body.data[0].url as string;
    const image = Buffer.from(await (await fetch(link)).arrayBuffer());
    expect(await sharp(image).metadata()).toMatchObject({ format: 'jpeg', width: 2736, height: 1536 });
  });

  it('b64_json; resolution in the wrong case falls back to 1k; 4k is a 503', async () => {
    const body = (await (
      await call('/images/generations', { model: 'alpha-image-2.0', prompt: 'x', resolution: '2K', response_format: 'b64_json' })
    ).json()) as ImagesAnswer;
    expect(await sharp(Buffer.from(body.data[0].b64_json as string, 'base64')).metadata()).toMatchObject({ width: 1024, height: 1024 });
    const refused = await call('/images/generations', { model: 'alpha-image', prompt: 'x', resolution: '4k' });
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({
      code: 'The service is currently unavailable',
      error: expect.stringContaining('model_service_unavailable'),
    });
  });

  it('edits: JSON sources, a single source keeps its ratio, at most three', async () => {
    const source = await imageDataUrl('png', 300, 600);
    const body = (await (
      await call('/images/edits', {
        model: 'alpha-image',
        prompt: 'paint it',
        image: { url: source, type: 'image_url' },
        aspect_ratio: '16:9',
        response_format: 'b64_json',
      })
    ).json()) as ImagesAnswer;
    expect(await sharp(Buffer.from(body.data[0].b64_json as string, 'base64')).metadata()).toMatchObject({ width: 720, height: 1456 });
    const four = await call('/images/edits', { model: 'alpha-image', prompt: 'x', images: [1, 2, 3, 4].map(() => ({ url: source })) });
    expect(four.status).toBe(400);
  });

  it('both error shapes; an unknown key is 400, no key 401; the spend cap and the rate limit are told apart', async () => {
    expect(await (await call('/images/generations', { model: 'alpha-image', prompt: 'x' }, 'nope-key-123456')).json()).toMatchObject({
      error: expect.stringContaining('Incorrect API key'),
    });
    expect((await call('/images/generations', { model: 'alpha-image', prompt: 'x' }, '')).status).toBe(401);
    const limited = await call('/images/generations', { model: 'alpha-image', prompt: 'x [sim:ratelimit=3] [sim:object-errors]' });
    expect({ status: limited.status, retryAfter: limited.headers.get('retry-after') }).toEqual({ status: 429, retryAfter: '3' });
    expect(await limited.json()).toMatchObject({ error: { message: expect.stringContaining('rate limit'), type: 'rate_limit_error' } });
    const credits = await call('/images/generations', { model: 'alpha-image', prompt: 'x [sim:credits]' });
    expect(credits.status).toBe(429);
    expect(((await credits.json()) as { error: string }).error).toMatch(/used all available credits or reached its monthly spending limit/);
  });

  it('a link expires', async () => {
    const body = (await (
      await call('/images/generations', { model: 'alpha-image', prompt: 'x [sim:url-expired]' })
    ).json()) as ImagesAnswer;
    expect((await fetch(body.data[0].url as string)).status).toBe(403);
  });
});

describe('the planner', () => {
  const request = (extra: Record<string, unknown>, text = 'a lighthouse [sim:ratelimit]') => ({
    model: 'alpha-4.3',
    input: [{ role: 'user', content: [{ type: 'input_text', text }] }],
    store: false,
    ...extra,
  });

  it('searches with web_search: a web_search_call, then a message with url_citation annotations', async () => {
    const body = (await (await call('/responses', request({ tools: [{ type: 'web_search' }], tool_choice: 'required' }))).json()) as {
      id: string;
      output: Record<string, unknown>[];
      usage: Record<string, number>;
    };
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    const annotations = (body.output[1].content as { annotations: { type: string; url: string }[] }[])[0].annotations;
    expect(annotations.length).toBe(3);
    expect(annotations.every((annotation) => annotation.type === 'url_citation' && annotation.url.startsWith('https://'))).toBe(true);
    expect(body.usage).toMatchObject({ num_sources_used: 3, num_server_side_tools_used: 1 });
  });

  it('plans without tools: the final prompt carries the triggers; streams the Responses event family', async () => {
    const body = (await (await call('/responses', request({}))).json()) as { output: { content: { text: string }[] }[] };
    expect(body.output[0].content[0].text).toMatch(/^A detailed, well-composed image of a lighthouse\..*\[sim:ratelimit\]$/);
    const streamed = await (await call('/responses', request({ stream: true }))).text();
    const events = [...streamed.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events[0]).toBe('response.created');
    expect(events.at(-1)).toBe('response.completed');
    expect(events).toContain('response.output_text.delta');
  });

  it('an unknown planner model is 404', async () => {
    expect((await call('/responses', { ...request({}), model: 'alpha-9' })).status).toBe(404);
  });
});

describe('the issuer and the session', () => {
  it('a device code, approved through the control route, polls to tokens the API accepts', async () => {
    const discovery = (await (await fetch(`${sim.issuerUrl}/.well-known/openid-configuration`)).json()) as Record<string, string>;
    const device = (await (
      await form(discovery.device_authorization_endpoint, { client_id: ALPHA_CLIENT_ID, scope: 'openid offline_access' })
    ).json()) as { device_code: string; user_code: string };
    const poll = () =>
      form(discovery.token_endpoint, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: device.device_code,
        client_id: ALPHA_CLIENT_ID,
      });
    expect(await (await poll()).json()).toMatchObject({ error: 'authorization_pending' });
    const approved = await fetch(`${sim.url}/__sim/alpha/device-codes/approve`, {
      method: 'POST',
      body: JSON.stringify({ userCode: device.user_code }),
    });
    expect(approved.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const tokens = (await (await poll()).json()) as { access_token: string };
    const models = await fetch(`${sim.apiBaseUrl}/models`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(models.status).toBe(200);
  });

  it('refresh rotates: the old refresh token is then invalid_grant', async () => {
    const session = createAlphaSession(sim);
    const refresh = () =>
      form(session.tokenEndpoint as string, {
        grant_type: 'refresh_token',
        client_id: ALPHA_CLIENT_ID,
        refresh_token: session.refreshToken as string,
      });
    expect((await refresh()).status).toBe(200);
    expect(await (await refresh()).json()).toMatchObject({ error: 'invalid_grant' });
    const expired = createAlphaSession(sim, { expired: true });
    const refused = await fetch(`${sim.apiBaseUrl}/models`, { headers: { authorization: `Bearer ${expired.accessToken}` } });
    expect(refused.status).toBe(401);
  });
});

describe('the billing proxy', () => {
  it('answers the values set through the control route; at the cap the images API refuses with the credits 429', async () => {
    const session = createAlphaSession(sim);
    const set = await fetch(`${sim.url}/__sim/alpha/billing`, {
      method: 'PUT',
      body: JSON.stringify({ usedCents: 7500, limitCents: 30000, periodEnd: '2026-03-31T23:59:59Z' }),
    });
    expect(set.status).toBe(200);
    const billing = await fetch(`${sim.billingUrl}/v1/billing`, { headers: { authorization: `Bearer ${session.accessToken}` } });
    expect(await billing.json()).toEqual({
      config: { monthlyLimit: { val: 30000 }, used: { val: 7500 }, billingPeriodEnd: '2026-03-31T23:59:59Z' },
    });
    await fetch(`${sim.url}/__sim/alpha/billing`, { method: 'PUT', body: JSON.stringify({ usedCents: 30000 }) });
    expect((await call('/images/generations', { model: 'alpha-image', prompt: 'x' })).status).toBe(429);
    await fetch(`${sim.url}/__sim/alpha/billing`, { method: 'PUT', body: JSON.stringify({ usedCents: 0 }) });
    expect((await call('/images/generations', { model: 'alpha-image', prompt: 'x' })).status).toBe(200);
    expect(sim.simulator.lastRequest({ route: ALPHA_ROUTES.generations })?.credentialFingerprint).toBeDefined();
  });
});
