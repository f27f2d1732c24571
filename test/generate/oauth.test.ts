import { OAUTH_ORIGINATOR } from '../../src/studio/lanes/oauth/index.js';
import { usableSession } from '../../src/studio/lanes/oauth/refresh.js';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOauthSession, startResponsesSimulator, type ResponsesSimulator } from '../../src/sim/responses-simulator.js';
import { startRig } from './rig.js';

// The oauth lane: the chat session file, its refresh (proactive on expiry,
// single-flight, written back atomically with mode 0600), and the subscription
// backend's request rules.

interface AuthFile {
  tokens: { access_token: string; refresh_token: string; id_token: string; account_id: string };
  last_refresh: string;
  auth_mode: string;
}

let sim: ResponsesSimulator;
beforeAll(async () => {
  sim = await startResponsesSimulator();
});
afterAll(async () => {
  await sim.close();
});

describe('oauth lane', () => {
  it('sends the backend what it requires: stream, store:false, instructions, account header, mapped planner', async () => {
    const rig = await startRig({ sim, oauth: {}, apiKey: false });
    try {
      const response = await rig.post('/api/generate', { prompt: 'a quiet harbour', provider: 'oauth', model: 'lang-5.6-sol' });
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        provider: string;
        model: string;
        requestedModel: string;
        images: Array<{ lane: string; model: string }>;
      };
      // lang-5.6-sol runs as lang-6-sol on the subscription backend.
      expect(body).toMatchObject({ provider: 'oauth', model: 'lang-6-sol', requestedModel: 'lang-5.6-sol' });
      expect(body.images[0]).toMatchObject({ provider: 'oauth', model: 'lang-6-sol' });
      const sent = sim.simulator.lastRequest({ route: 'POST /backend-api/codex/responses' });
      expect(sent?.headers['chatgpt-account-id']).toBe(sim.account.accountId);
      expect(sent?.headers.originator).toBe(OAUTH_ORIGINATOR);
      expect(sent?.headers.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(sent?.headers.authorization).not.toContain(JSON.parse(readFileSync(rig.authFile, 'utf8')).tokens.access_token);
      const upstream = sent?.body as Record<string, unknown>;
      expect(upstream).toMatchObject({ model: 'lang-6-sol', stream: true, store: false });
      expect(String(upstream.instructions).length).toBeGreaterThan(20);
      const tools = upstream.tools as Array<Record<string, unknown>>;
      expect(tools).toHaveLength(1);
      expect(tools[0]).toMatchObject({ type: 'image_generation', model: 'lang-image-2' });
    } finally {
      await rig.stop();
    }
  });

  it('refreshes an expired session once, writes the file back with mode 0600, and keeps unknown fields', async () => {
    const rig = await startRig({ sim, oauth: { expired: true }, apiKey: false });
    try {
      const before = JSON.parse(readFileSync(rig.authFile, 'utf8')) as AuthFile & { extra?: string };
      writeFileSync(rig.authFile, JSON.stringify({ ...before, extra: 'kept' }, null, 2), { mode: 0o644 });
      sim.simulator.clearRequests();
      // Two jobs at once: one refresh between them (refresh tokens rotate).
      const [first, second] = await Promise.all([
        rig.post('/api/generate', { prompt: 'first', provider: 'oauth' }),
        rig.post('/api/generate', { prompt: 'second', provider: 'oauth' }),
      ]);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(sim.simulator.requests({ route: 'POST /oauth/token' })).toHaveLength(1);
      const refreshBody = sim.simulator.lastRequest({ route: 'POST /oauth/token' })?.body as Record<string, unknown>;
      expect(refreshBody).toMatchObject({ grant_type: 'refresh_token', client_id: 'app_EMoamEEZ73f0CkXaXp7hrann' });

      const after = JSON.parse(readFileSync(rig.authFile, 'utf8')) as AuthFile & { extra?: string };
      expect(statSync(rig.authFile).mode & 0o777).toBe(0o600);
      expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
      expect(after.tokens.refresh_token).not.toBe(before.tokens.refresh_token);
      expect(after.tokens.account_id).toBe(before.tokens.account_id);
      expect(after.extra).toBe('kept');
      expect(after.auth_mode).toBe('chatgpt');
      expect(Date.now() - Date.parse(after.last_refresh)).toBeLessThan(60_000);
      // Pretty-printed like the chat CLI writes it.
      expect(readFileSync(rig.authFile, 'utf8')).toContain('\n  "tokens": {');

      // The fresh session is used as is: no second refresh.
      expect((await rig.post('/api/generate', { prompt: 'third', provider: 'oauth' })).status).toBe(200);
      expect(sim.simulator.requests({ route: 'POST /oauth/token' })).toHaveLength(1);
    } finally {
      await rig.stop();
    }
  });

  it('refreshes once however the callers interleave with the refresh (a late reader never reuses the rotated token)', async () => {
    const rig = await startRig({ sim, oauth: {}, apiKey: false });
    try {
      for (let round = 0; round < 6; round++) {
        writeFileSync(rig.authFile, JSON.stringify(createOauthSession(sim, { expired: true }), null, 2), { mode: 0o600 });
        sim.simulator.clearRequests();
        // Callers start at staggered moments, so some read the file while the refresh is landing.
        const sessions = await Promise.all(
          Array.from({ length: 12 }, (_, index) =>
            new Promise((resolve) => setTimeout(resolve, index % 4)).then(() => usableSession(rig.studio.ctx)),
          ),
        );
        expect(sim.simulator.requests({ route: 'POST /oauth/token' })).toHaveLength(1);
        expect(new Set(sessions.map((session) => session.accessToken)).size).toBe(1);
      }
    } finally {
      await rig.stop();
    }
  });

  it('refreshes after a 401 (revoked access token) and retries once', async () => {
    const rig = await startRig({ sim, oauth: {}, apiKey: false });
    try {
      const before = JSON.parse(readFileSync(rig.authFile, 'utf8')) as AuthFile;
      sim.tokens.revoke(before.tokens.access_token);
      sim.simulator.clearRequests();
      const response = await rig.post('/api/generate', { prompt: 'after a revoke', provider: 'oauth' });
      expect(response.status).toBe(200);
      expect(sim.simulator.requests({ route: 'POST /backend-api/codex/responses' }).map((entry) => entry.status)).toEqual([401, 200]);
      expect(sim.simulator.requests({ route: 'POST /oauth/token' })).toHaveLength(1);
      const after = JSON.parse(readFileSync(rig.authFile, 'utf8')) as AuthFile;
      expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
      expect(statSync(rig.authFile).mode & 0o777).toBe(0o600);
    } finally {
      await rig.stop();
    }
  });

  it('after a 401, picks up a session another process refreshed instead of refreshing again', async () => {
    const rig = await startRig({ sim, oauth: {}, apiKey: false });
    try {
      sim.simulator.clearRequests();
      // The backend answers the first call with a (slow) 401; meanwhile the file gets a newer session.
      sim.simulator.fault('POST /backend-api/codex/responses', { status: 401, latencyMs: 400 });
      const pending = rig.post('/api/generate', { prompt: 'retry with the newer file', provider: 'oauth' });
      while (sim.simulator.requests({ route: 'POST /backend-api/codex/responses' }).length === 0)
        await new Promise((resolve) => setTimeout(resolve, 5));
      writeFileSync(rig.authFile, JSON.stringify(createOauthSession(sim), null, 2), { mode: 0o600 });
      const response = await pending;
      expect(response.status).toBe(200);
      expect(sim.simulator.requests({ route: 'POST /backend-api/codex/responses' }).map((entry) => entry.status)).toEqual([401, 200]);
      expect(sim.simulator.requests({ route: 'POST /oauth/token' })).toHaveLength(0);
    } finally {
      await rig.stop();
    }
  });

  it('routes auto to oauth when a chat session is present', async () => {
    const rig = await startRig({ sim, oauth: {} });
    try {
      const response = await rig.post('/api/generate', { prompt: 'auto', provider: 'auto' });
      expect(((await response.json()) as { provider: string }).provider).toBe('oauth');
      const providers = (await (await rig.get('/api/providers')).json()) as { providers: Array<{ id: string; state: string }> };
      expect(providers.providers.filter((lane) => lane.id === 'oauth' || lane.id === 'api').map((lane) => lane.state)).toEqual([
        'ready',
        'ready',
      ]);
    } finally {
      await rig.stop();
    }
  });
});
