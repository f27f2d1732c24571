import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  RESPONSES_ROUTES,
  createOauthSession,
  startResponsesSimulator,
  type OauthAuthFile,
  type ResponsesSimulator,
} from '../../src/sim/responses-simulator.js';
import { apiHeaders, imageBody, oauthHeaders, oauthImageBody } from './responses-fixtures.js';
import { postJson, readSse, type SseResult } from './sse-client.js';

let sim: ResponsesSimulator;
let session: OauthAuthFile;

beforeAll(async () => {
  sim = await startResponsesSimulator();
  session = createOauthSession(sim);
});

afterAll(async () => {
  await sim.close();
});

beforeEach(() => sim.simulator.clearFaults());

const api = (prompt: string, options: Parameters<typeof imageBody>[0] = {}) =>
  postJson(`${sim.apiBaseUrl}/responses`, imageBody({ prompt, ...options }), apiHeaders(sim));
const oauth = (prompt: string, options: Parameters<typeof imageBody>[0] = {}) =>
  postJson(`${sim.backendBaseUrl}/codex/responses`, oauthImageBody({ prompt, ...options }), oauthHeaders(session));
const errorOf = async (response: Response) => ((await response.json()) as { error: Record<string, unknown> }).error;
const types = (result: SseResult) => result.events.map((event) => event.event);

describe('prompt triggers: HTTP answers', () => {
  it('[sim:moderation] → 400 moderation_blocked on every surface', async () => {
    for (const response of [
      await api('a cat [sim:moderation]', { stream: false }),
      await api('a cat [sim:moderation]'),
      await oauth('a cat [sim:moderation]'),
      await postJson(`${sim.apiBaseUrl}/images/generations`, { prompt: 'a cat [sim:moderation]' }, apiHeaders(sim)),
    ]) {
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ type: 'image_generation_user_error', code: 'moderation_blocked' });
    }
  });

  it('[sim:safety] → invalid_prompt on api, cyber_policy on oauth', async () => {
    const viaApi = await api('x [sim:safety]', { stream: false });
    expect(viaApi.status).toBe(400);
    expect(await errorOf(viaApi)).toMatchObject({ code: 'invalid_prompt' });
    const viaOauth = await oauth('x [sim:safety]');
    expect(viaOauth.status).toBe(400);
    expect(await errorOf(viaOauth)).toMatchObject({ code: 'cyber_policy', message: expect.any(String) });
  });

  it('[sim:unauthorized] and [sim:token-expired] → 401', async () => {
    const viaApi = await api('x [sim:unauthorized]');
    expect(viaApi.status).toBe(401);
    expect(await errorOf(viaApi)).toMatchObject({ code: 'invalid_api_key' });
    const invalidated = await oauth('x [sim:unauthorized]');
    expect(invalidated.status).toBe(401);
    expect(await errorOf(invalidated)).toMatchObject({ code: 'token_invalidated' });
    const expired = await oauth('x [sim:token-expired]');
    expect(expired.status).toBe(401);
    expect(await errorOf(expired)).toMatchObject({ code: 'token_expired' });
  });

  it('[sim:ratelimit] → 429 rate_limit_exceeded with retry hints', async () => {
    const response = await api('x [sim:ratelimit]');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('retry-after-ms')).toBe('1200');
    expect(response.headers.get('x-should-retry')).toBe('true');
    const error = await errorOf(response);
    expect(error).toMatchObject({ code: 'rate_limit_exceeded' });
    expect(error.message).toContain('try again in 1.2s');
    const custom = await api('x [sim:ratelimit=300]');
    expect(custom.headers.get('retry-after-ms')).toBe('300');
    expect((await errorOf(custom)).message).toContain('try again in 300ms');
  });

  it('[sim:quota] → insufficient_quota on api, usage_limit_reached on oauth', async () => {
    const viaApi = await api('x [sim:quota]');
    expect(viaApi.status).toBe(429);
    expect(viaApi.headers.get('x-should-retry')).toBe('false');
    expect(await errorOf(viaApi)).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    const viaOauth = await oauth('x [sim:quota=600]');
    expect(viaOauth.status).toBe(429);
    expect(await errorOf(viaOauth)).toMatchObject({
      type: 'usage_limit_reached',
      plan_type: 'plus',
      resets_in_seconds: 600,
      resets_at: expect.any(Number),
    });
    const notIncluded = await oauth('x [sim:usage-not-included]');
    expect(await errorOf(notIncluded)).toMatchObject({ type: 'usage_not_included' });
  });

  it('[sim:server-error] → 500 and [sim:overloaded] → 503', async () => {
    const failed = await api('x [sim:server-error]');
    expect(failed.status).toBe(500);
    expect(await errorOf(failed)).toMatchObject({ type: 'server_error' });
    const busy = await oauth('x [sim:overloaded]');
    expect(busy.status).toBe(503);
    expect(await busy.json()).toEqual({ error: { code: 'server_is_overloaded' } });
  });

  it('[sim:slow=ms] holds the answer so a client timeout fires', async () => {
    const body = imageBody({ prompt: 'x [sim:slow=20000]', stream: false });
    await expect(postJson(`${sim.apiBaseUrl}/responses`, body, apiHeaders(sim), AbortSignal.timeout(100))).rejects.toThrow();
    const entry = await sim.simulator.waitForRequest((request) => request.outcome === 'client-aborted');
    expect(entry.status).toBeUndefined();
  });
});

describe('prompt triggers: in-stream behaviour', () => {
  it('[sim:moderation-stream] → error event then response.failed, no completed', async () => {
    const result = await readSse(await api('x [sim:moderation-stream]'));
    expect(types(result).slice(-2)).toEqual(['error', 'response.failed']);
    expect(result.events.at(-2)!.data).toMatchObject({
      type: 'error',
      code: 'moderation_blocked',
      param: null,
      sequence_number: expect.any(Number),
    });
    const failed = result.events.at(-1)!.data!.response as Record<string, unknown>;
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'image_content_policy_violation' } });
    expect(types(result)).not.toContain('response.completed');
    // Without a stream the same trigger is an HTTP 400.
    expect((await api('x [sim:moderation-stream]', { stream: false })).status).toBe(400);
  });

  it('[sim:moderation-unless-low] refuses unless moderation is low', async () => {
    const strict = await readSse(await api('x [sim:moderation-unless-low]'));
    expect(types(strict).at(-1)).toBe('response.failed');
    const relaxed = await readSse(await api('x [sim:moderation-unless-low]', { tool: { moderation: 'low' } }));
    expect(types(relaxed).at(-1)).toBe('response.completed');
  });

  it('[sim:safety-stream] → response.failed with the lane policy code', async () => {
    const viaApi = await readSse(await api('x [sim:safety-stream]'));
    expect(viaApi.events.at(-1)!.data!.response).toMatchObject({ status: 'failed', error: { code: 'invalid_prompt' } });
    const viaOauth = await readSse(await oauth('x [sim:safety-stream]'));
    expect(viaOauth.events.at(-1)!.data!.response).toMatchObject({ status: 'failed', error: { code: 'cyber_policy' } });
  });

  it('[sim:ratelimit-stream] → error rate_limit_exceeded with a parseable delay', async () => {
    const result = await readSse(await api('x [sim:ratelimit-stream]'));
    const error = result.events.find((event) => event.event === 'error')!.data!;
    expect(error.code).toBe('rate_limit_exceeded');
    expect(String(error.message)).toMatch(/try again in 1\.2s/);
    expect(types(result).at(-1)).toBe('response.failed');
  });

  it('[sim:disconnect] cuts the stream after generating with no terminal event', async () => {
    const result = await readSse(await api('x [sim:disconnect]'));
    expect(result.cut).toBe(true);
    expect(types(result).at(-1)).toBe('response.image_generation_call.generating');
    const entry = await sim.simulator.waitForRequest((request) => request.outcome === 'cut-by-simulator');
    expect(entry.route).toBe(RESPONSES_ROUTES.apiResponses);
    await expect(api('x [sim:disconnect]', { stream: false }).then((response) => response.text())).rejects.toThrow();
  });

  it('[sim:malformed] sends a truncated JSON data line, then goes on', async () => {
    const result = await readSse(await api('x [sim:malformed]'));
    const broken = result.events.filter((event) => event.data === undefined);
    expect(broken).toHaveLength(1);
    expect(broken[0].event).toBe('response.image_generation_call.in_progress');
    expect(types(result).at(-1)).toBe('response.completed');
    const json = await api('x [sim:malformed]', { stream: false });
    expect(json.status).toBe(200);
    await expect(json.json()).rejects.toThrow();
  });

  it('[sim:incomplete] ends with response.incomplete', async () => {
    const result = await readSse(await api('x [sim:incomplete]'));
    expect(result.events.at(-1)!.data).toMatchObject({
      type: 'response.incomplete',
      response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
    });
  });

  it('[sim:no-image], [sim:fewer-partials] and [sim:generating-status]', async () => {
    const noImage = await readSse(await api('x [sim:no-image]'));
    expect(types(noImage)).not.toContain('response.image_generation_call.generating');
    expect(types(noImage)).toContain('response.output_text.delta');
    const fewer = await readSse(await api('x [sim:fewer-partials]', { tool: { partial_images: 3 } }));
    expect(types(fewer).filter((type) => type === 'response.image_generation_call.partial_image')).toHaveLength(1);
    const generating = await readSse(await api('x [sim:generating-status]'));
    const done = generating.events.find((event) => event.event === 'response.output_item.done')!.data!.item as Record<string, unknown>;
    expect(done.status).toBe('generating');
    expect(String(done.result).length).toBeGreaterThan(100);
  });

  it('[sim:wire-quirks] frames the same events with BOM, CRLF, comments, retry, split writes and a dropped trailing event', async () => {
    const response = await api('x [sim:wire-quirks]', { tool: { partial_images: 1 } });
    const raw = Buffer.from(await response.arrayBuffer());
    expect(raw.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const text = raw.toString('utf8');
    expect(text).toContain('retry: 3000\r\n');
    expect(text).toContain(': keep-alive\r\n');
    expect(text.endsWith('data: {"dropped":true}')).toBe(true);
    // A conforming parser sees exactly the normal event sequence.
    const { createParser } = await import('eventsource-parser');
    const seen: string[] = [];
    const parser = createParser({ onEvent: (event) => seen.push(event.event ?? 'message') });
    parser.feed(text.replace(/^\uFEFF/, ''));
    expect(seen).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.image_generation_call.in_progress',
      'response.image_generation_call.generating',
      'response.image_generation_call.partial_image',
      'response.image_generation_call.completed',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('[sim:done-sentinel] adds a stray data: [DONE] after the terminal event', async () => {
    const result = await readSse(await api('x [sim:done-sentinel]'));
    expect(result.events.at(-2)?.event).toBe('response.completed');
    expect(result.events.at(-1)).toMatchObject({ event: undefined, raw: '[DONE]' });
  });

  it('removes triggers from the prompt and leaves unknown ones alone', async () => {
    const result = await readSse(await api('a fox [sim:fewer-partials] [sim:bogus]'));
    const done = result.events.find((event) => event.event === 'response.output_item.done')!.data!.item as { revised_prompt: string };
    expect(done.revised_prompt).toBe('A simulated image of a fox [sim:bogus]');
  });
});

describe('fault injection on the Responses routes', () => {
  it('answers an injected status in the route lane shape', async () => {
    sim.simulator.fault(RESPONSES_ROUTES.apiResponses, { status: 500 });
    const viaApi = await api('x');
    expect(viaApi.status).toBe(500);
    expect(await errorOf(viaApi)).toMatchObject({ type: 'server_error' });
    sim.simulator.fault(RESPONSES_ROUTES.oauthResponses, { status: 429 });
    const viaOauth = await oauth('x');
    expect(viaOauth.status).toBe(429);
    expect(await errorOf(viaOauth)).toMatchObject({ type: 'usage_limit_reached' });
    sim.simulator.fault(RESPONSES_ROUTES.oauthToken, { status: 401 });
    const token = await postJson(`${sim.issuerUrl}/oauth/token`, {
      grant_type: 'refresh_token',
      refresh_token: session.tokens.refresh_token,
    });
    expect(token.status).toBe(401);
    expect(await errorOf(token)).toMatchObject({ code: 'refresh_token_invalidated' });
  });

  it('cuts a Responses stream after N events', async () => {
    sim.simulator.fault(RESPONSES_ROUTES.apiResponses, { disconnectAfterEvents: 3 });
    const result = await readSse(await api('x'));
    expect(result.cut).toBe(true);
    expect(types(result)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added']);
  });

  it('injects faults over HTTP for out-of-process clients', async () => {
    const added = await postJson(`${sim.url}/__sim/faults`, { route: RESPONSES_ROUTES.oauthResponses, status: 503, times: 2 });
    expect(added.status).toBe(201);
    expect((await oauth('x')).status).toBe(503);
    expect((await oauth('x')).status).toBe(503);
    const ok = await oauth('x');
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const log = (await (await fetch(`${sim.url}/__sim/requests?route=${encodeURIComponent(RESPONSES_ROUTES.oauthResponses)}`)).json()) as {
      requests: { faults: string[]; headers: Record<string, string> }[];
    };
    expect(log.requests.filter((entry) => entry.faults.includes('status:503'))).toHaveLength(2);
    // The access token is masked in the log.
    expect(JSON.stringify(log)).not.toContain(session.tokens.access_token);
  });
});
