import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, stallBody } from '../helpers/raw-http.js';
import { startTestChat, type TestChatServer } from './helpers.js';
import { ensureChatBuild } from '../web/build.js';

const json = { 'content-type': 'application/json' };

describe('Host / Origin protections', () => {
  let server: TestChatServer;
  beforeAll(async () => {
    server = await startTestChat();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('refuses a foreign Host (DNS rebinding) on every route, including the events and the page', async () => {
    for (const path of ['/api/health', '/api/events', '/', '/api/traces']) {
      const response = await rawRequest(server.url, { path, headers: { host: 'evil.example:3344' } });
      expect(response.status).toBe(403);
      expect(JSON.parse(response.body)).toMatchObject({ error: { code: 'FORBIDDEN_HOST' } });
    }
  });

  it('refuses state-changing requests from another origin (CSRF), before anything runs', async () => {
    const body = JSON.stringify({ prompt: 'should never run' });
    const foreign = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/message',
      headers: { ...json, origin: 'https://evil.example' },
      body,
    });
    expect(foreign.status).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
    const site = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/command',
      headers: { ...json, 'sec-fetch-site': 'cross-site' },
      body: '{"text":"/cancel"}',
    });
    expect(site.status).toBe(403);
    const traces = await server.getJson<{ traces: unknown[] }>('/api/traces');
    expect(traces.body.traces).toHaveLength(0);

    const same = await rawRequest(server.url, {
      method: 'POST',
      path: '/api/command',
      headers: { ...json, origin: server.url },
      body: '{"text":"/help"}',
    });
    expect(same.status).toBe(200);
  });
});

describe('token', () => {
  it('requires the token (SVC_CHAT_TOKEN) on every request when one is set, and never echoes it', async () => {
    const server = await startTestChat({ env: { PATH: process.env.PATH, SVC_CHAT_TOKEN: 'chat-secret-token-value' } });
    try {
      const without = await rawRequest(server.url, { path: '/api/health' });
      expect(without.status).toBe(401);
      expect(without.body).not.toContain('chat-secret-token-value');
      const withHeader = await rawRequest(server.url, {
        path: '/api/health',
        headers: { authorization: 'Bearer chat-secret-token-value' },
      });
      expect(withHeader.status).toBe(200);
      const events = await rawRequest(server.url, { path: '/api/events?token=wrong' });
      expect(events.status).toBe(401);
    } finally {
      await server.stop();
    }
  });

  it("serves the page's own files without it (and nothing else), and accepts it as ?token= for the event stream", async () => {
    const token = 'chat-secret-token-value';
    await ensureChatBuild();
    const server = await startTestChat({ env: { PATH: process.env.PATH, SVC_CHAT_TOKEN: token } });
    try {
      for (const path of ['/', '/assets/chat.js', '/assets/chat.css', '/favicon.svg', '/?token=wrong']) {
        expect((await rawRequest(server.url, { path })).status, path).toBe(200);
      }
      for (const path of ['/index.html', '/api/sessions', '/api/status', '/assets/chat.js/x', '/assets/other.js', '/api/traces']) {
        expect((await rawRequest(server.url, { path })).status, path).toBe(401);
      }
      // Only reading the page is free.
      expect(
        (await rawRequest(server.url, { method: 'POST', path: '/', headers: { 'content-type': 'application/json' }, body: '{}' })).status,
      ).toBe(401);

      const sessions = await rawRequest(server.url, { path: `/api/sessions?token=${token}` });
      expect(sessions.status).toBe(200);
      const events = await fetch(`${server.url}/api/events?lastEventId=x&token=${token}`);
      expect(events.status).toBe(200);
      await events.body?.cancel();
      // Writes must carry the header.
      const post = await rawRequest(server.url, {
        method: 'POST',
        path: `/api/sessions?token=${token}`,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(post.status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});

describe('connections', () => {
  let server: TestChatServer;
  beforeAll(async () => {
    // The request bound made short (30 s by default) so the test sees it act.
    server = await startTestChat({ requestTimeoutMs: 1000 });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('closes a request whose body stalls, within the request timeout, and nothing ran', async () => {
    // Headers and part of a body, then silence: without the bound the socket stays open and the test times out.
    const answer = await stallBody(server.url, '/api/message');
    // Node answers 408 to a request that did not arrive in time, then closes.
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect((await server.getJson<{ traces: unknown[] }>('/api/traces')).body.traces).toHaveLength(0);
    // The server is fine afterwards.
    expect((await server.getJson('/api/health')).status).toBe(200);
  }, 15_000);
});

describe('agent program environment and arguments', () => {
  it("passes an allow-list of variables (plus the agent's own), never the server's secrets, and runs in the work dir", async () => {
    const server = await startTestChat({
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVC_CHAT_TOKEN: 'chat-token',
        SVC_TOKEN: 'studio-token',
        OMNI_API_KEY: 'studio-key',
        ANTHROPIC_API_KEY: 'agent-a-key',
        OPENAI_API_KEY: 'agent-b-key',
        LC_ALL: 'C.UTF-8',
      },
      token: undefined,
    });
    try {
      const headers = { authorization: 'Bearer chat-token', ...json };
      const send = async (agent: string) => {
        const response = await fetch(`${server.url}/api/message`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ prompt: '[fake:env]', agent }),
        });
        const lines = (await response.text())
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { type: string; content?: string });
        return lines
          .filter((line) => line.type === 'text')
          .map((line) => line.content)
          .join('');
      };
      const a = await send('agent-a');
      expect(a).toContain(`cwd=${server.home}`);
      const names = a.split('env=')[1].split(',');
      expect(names).toEqual(expect.arrayContaining(['PATH', 'HOME', 'LC_ALL', 'ANTHROPIC_API_KEY']));
      for (const secret of ['SVC_CHAT_TOKEN', 'SVC_TOKEN', 'OMNI_API_KEY', 'OPENAI_API_KEY']) expect(names).not.toContain(secret);
      const b = (await send('agent-b')).split('env=')[1].split(',');
      expect(b).toContain('OPENAI_API_KEY');
      expect(b).not.toContain('ANTHROPIC_API_KEY');
    } finally {
      await server.stop();
    }
  });

  it('never lets a prompt reach a shell', async () => {
    const server = await startTestChat();
    try {
      const marker = join(server.home, 'pwned');
      for (const agent of ['agent-a', 'agent-b', 'agent-c']) {
        const prompt = `x; touch ${marker} $(touch ${marker}) \`touch ${marker}\``;
        const { lines } = await server.postLines('/api/message', { prompt, agent });
        expect(lines.find((line) => line.type === 'text')).toEqual({ type: 'text', content: `Echo: ${prompt}` });
      }
      expect(existsSync(marker)).toBe(false);
    } finally {
      await server.stop();
    }
  });

  it('ends a run whose program is missing with an error done, and the server stays up', async () => {
    const server = await startTestChat({ programs: { 'agent-b': { file: '/nonexistent/agent-b', prefixArgs: [] } } });
    try {
      const { lines } = await server.postLines('/api/message', { prompt: 'hi', agent: 'agent-b' });
      expect(lines.at(-1)).toMatchObject({ type: 'done', status: 'error', reason: expect.stringContaining('ENOENT') });
      const agents = await server.getJson<{ agents: Array<{ id: string; available: boolean }> }>('/api/agents');
      expect(agents.body.agents.find((agent) => agent.id === 'agent-b')?.available).toBe(false);
      expect((await server.postLines('/api/message', { prompt: 'still here' })).lines.at(-1)).toEqual({ type: 'done', status: 'ok' });
    } finally {
      await server.stop();
    }
  });
});
