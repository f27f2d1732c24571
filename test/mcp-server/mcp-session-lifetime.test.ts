import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_MAX_SESSIONS } from '../../src/studio/mcp-server/route.js';
import { startStudio } from '../../src/studio/main.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';
import { SVC } from '../helpers/svc.js';

// Issue 45 item 4: 32 abandoned MCP sessions locked every MCP client out until
// a restart. An idle session ends after its idle time, the one idle the longest
// gives way to a new client before any 503, and the stdio bridge opens a new
// session when the studio restarted under it.

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'abandoned', version: '1' } },
};

/** Opens a session the way a client would, then abandons it (no DELETE): its id. */
async function abandonedSession(studio: TestStudio): Promise<string> {
  const response = await studio.request('/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) });
  expect(response.status).toBe(200);
  await response.text();
  return response.headers.get('mcp-session-id') as string;
}

/** The status a tools/list on a session gets (404: the session is gone). */
async function listStatus(studio: TestStudio, id: string): Promise<number> {
  const response = await studio.request('/mcp', {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  await response.text();
  return response.status;
}

async function started(env: Record<string, string> = {}): Promise<TestStudio> {
  const studio = await startTestStudio({ env });
  closers.push(() => studio.stop());
  return studio;
}

describe('MCP server sessions', () => {
  it('40 abandoned sessions do not stop a new client: the one idle the longest gives way', async () => {
    const studio = await started();
    const ids: string[] = [];
    for (let index = 0; index < 40; index += 1) ids.push(await abandonedSession(studio));
    const client = new Client({ name: 'newcomer', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${studio.url}/mcp`)));
    closers.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    // The oldest abandoned ones made room; the newest are still there.
    expect(await listStatus(studio, ids[0])).toBe(404);
    expect(await listStatus(studio, ids[39])).toBe(200);
  });

  it('answers 503 only when every session has a request in flight (an open stream)', async () => {
    const studio = await started();
    const streams: AbortController[] = [];
    closers.push(async () => streams.forEach((controller) => controller.abort()));
    for (let index = 0; index < MCP_MAX_SESSIONS; index += 1) {
      const id = await abandonedSession(studio);
      const controller = new AbortController();
      streams.push(controller);
      const stream = await studio.request('/mcp', {
        method: 'GET',
        headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        signal: controller.signal,
      });
      expect(stream.status).toBe(200);
    }
    const refused = await studio.request('/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { data: { code: string } } }).error.data.code).toBe('SERVICE_UNAVAILABLE');
    // One stream closes: its session is idle, and gives way.
    streams[0].abort();
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt += 1) {
      const response = await studio.request('/mcp', { method: 'POST', headers: HEADERS, body: JSON.stringify(INITIALIZE) });
      status = response.status;
      await response.text();
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
  });

  it('ends a session idle past SVC_MCP_SESSION_IDLE_MS', { timeout: 60_000 }, async () => {
    const studio = await started({ SVC_MCP_SESSION_IDLE_MS: '300' });
    const id = await abandonedSession(studio);
    // Each look is a request, which makes the session busy again: look less often than the idle time.
    let status = 200;
    for (let attempt = 0; attempt < 50 && status !== 404; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      status = await listStatus(studio, id);
    }
    expect(status).toBe(404);
  });
});

describe('svc mcp serve after a studio restart', () => {
  it('opens a new session on the restarted studio and answers the next request', async () => {
    const home = makeTempHome('svc-mcp-bridge-restart-');
    const env = { PATH: process.env.PATH, SVC_HOME: home };
    let studio = await startStudio({ env, port: 0, descriptor: false });
    const port = studio.port;
    closers.push(() => studio.close());
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', SVC, 'mcp', 'serve', '--server', studio.url],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', SVC_HOME: home },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'bridge-restart', version: '1.0.0' });
    await client.connect(transport);
    closers.push(() => client.close());
    const before = (await client.listTools()).tools.length;
    expect(before).toBeGreaterThan(0);

    await studio.close();
    studio = await startStudio({ env, port, descriptor: false });
    expect(studio.port).toBe(port);
    const after = await client.listTools(undefined, { timeout: 30_000 });
    expect(after.tools.length).toBe(before);
    expect(stderr).toMatch(/opened a new one/);
  }, 90_000);
});
