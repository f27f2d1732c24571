import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulatorSuite, type SimulatorSuite } from '../../src/sim/suite.js';
import { oauthHeaders, oauthImageBody } from './responses-fixtures.js';
import { postJson, readSse } from './sse-client.js';

let demo: SimulatorSuite;

beforeAll(async () => {
  demo = await startSimulatorSuite({ demo: true });
});

afterAll(async () => {
  await demo.close();
});

describe('the simulator suite in demo mode', () => {
  it('returns lane base URLs by the lanes conventions', () => {
    const { url } = demo.simulators.responses;
    expect(demo.upstreams).toMatchObject({ api: `${url}/v1`, oauth: `${url}/backend-api`, 'oauth.issuer': url });
  });

  it("gives an api key the api lane accepts, accepts any other key (a user's exported one), and refuses one marked rejected", async () => {
    for (const key of [demo.keys.omni, 'sim-typed-by-a-user', 'sk-proj-a-real-looking-key-0001']) {
      const response = await fetch(`${demo.upstreams.api}/models`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
    const wrong = await fetch(`${demo.upstreams.api}/models`, { headers: { authorization: 'Bearer a-rejected-key-0001' } });
    expect(wrong.status).toBe(401);
  });

  it('gives an oauth session the backend accepts, and paces the partial images', async () => {
    const session = demo.sessions.oauth as Parameters<typeof oauthHeaders>[0];
    expect(session.auth_mode).toBe('chatgpt');
    const response = await postJson(
      `${demo.upstreams.oauth}/codex/responses`,
      oauthImageBody({ tool: { partial_images: 1 } }),
      oauthHeaders(session),
    );
    expect(response.status).toBe(200);
    const result = await readSse(response);
    expect(result.events.at(-1)?.event).toBe('response.completed');
    const usage = await fetch(`${demo.upstreams.oauth}/wham/usage`, { headers: oauthHeaders(session) });
    const body = (await usage.json()) as { rate_limit: { primary_window: { used_percent: number } } };
    // Demo usage bars move with each generation.
    expect(body.rate_limit.primary_window.used_percent).toBeGreaterThan(12.5);
  });
});
