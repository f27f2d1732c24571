import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '../../src/studio/constants.js';
import { makeTempHome, startDemoStudio, type DemoStudio } from '../helpers/studio.js';
import { SVC } from '../helpers/svc.js';

// `svc mcp serve` over stdio, driven by the SDK's StdioClientTransport: a
// bridge to a running demo studio's /mcp (tools listed, an image generated
// and in history), and the start of a studio when none answers.

let studio: DemoStudio;

/** `svc mcp serve` as an MCP client configures it: this program, its arguments, its environment. */
function svcMcp(args: string[], env: Record<string, string>): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', SVC, 'mcp', 'serve', ...args],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NO_COLOR: '1', ...env },
    stderr: 'pipe',
  });
}

beforeAll(async () => {
  studio = await startDemoStudio('svc-mcp-stdio-');
}, 60_000);

afterAll(async () => {
  await studio?.stop();
});

describe('svc mcp serve (stdio)', () => {
  it('lists the tools and generates an image into the running studio', async () => {
    const transport = svcMcp(['--server', studio.url], { SVC_HOME: studio.home });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(9);
      expect(tools.find((tool) => tool.name === 'generate_image')?.inputSchema.required).toEqual(['prompt']);
      const progress: Progress[] = [];
      const result = (await client.callTool(
        { name: 'generate_image', arguments: { prompt: 'a red kite over hills', provider: 'gamma' } },
        undefined,
        { onprogress: (step) => void progress.push(step), timeout: 30_000 },
      )) as CallToolResult;
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      const { history } = result.structuredContent as { history: string[] };
      expect(result.content.some((block) => block.type === 'image')).toBe(true);
      const record = await studio.request(`/api/history/${encodeURIComponent(history[0])}`);
      expect(record.status).toBe(200);
      expect(progress.length).toBeGreaterThan(0);
      // Nothing but protocol on stdout: the bridge's words went to stderr.
      expect(stderr).toMatch(/bridging stdio/);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('prints only JSON-RPC on stdout, and exits by itself (code 0) when the client closes stdin', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', SVC, 'mcp', 'serve', '--server', studio.url], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', SVC_HOME: studio.home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    while (!stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 50));
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    while (stdout.split('\n').filter(Boolean).length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    child.stdin.end();
    const end = await exited;
    clearTimeout(timer);
    expect(end).toEqual({ code: 0, signal: null });
    const lines = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: { tools?: unknown[] } });
    expect(lines.every((line) => line.jsonrpc === '2.0')).toBe(true);
    expect(lines.find((line) => line.id === 2)?.result?.tools).toHaveLength(9);
  }, 30_000);

  it('fails clearly (on stderr) when the named studio does not answer', async () => {
    const transport = svcMcp(['--server', 'http://127.0.0.1:9'], { SVC_HOME: studio.home });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    await expect(client.connect(transport)).rejects.toThrow();
    await client.close();
    expect(stderr).toMatch(/Cannot reach the studio/);
  }, 30_000);

  it('starts a studio (svc serve --demo, detached) when none runs, and bridges to it', async () => {
    // Discovery falls back to the default port: a studio already there would be found, and none started.
    const atDefault = await fetch(`http://127.0.0.1:${DEFAULT_PORT}/api/health`, { signal: AbortSignal.timeout(2000) }).then(
      () => true,
      () => false,
    );
    expect(atDefault, `this test needs nothing serving on the default port ${DEFAULT_PORT}`).toBe(false);
    const home = makeTempHome('svc-mcp-start-');
    // A port of its own, so the started studio is not found at (or taken from) the default one.
    const env = { SVC_HOME: home, SVC_PORT: '0' };
    const transport = svcMcp(['--demo'], env);
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'stdio-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      expect((await client.listTools()).tools).toHaveLength(9);
      expect(stderr).toMatch(/starting one/);
      expect(Number(/pid (\d+)/.exec(stderr)?.[1])).toBe(startedPid(home));
    } finally {
      await client.close();
      // The started studio outlives the bridge by design: stopped here by the pid it advertised.
      const pid = startedPid(home);
      if (pid) {
        process.kill(pid, 'SIGTERM');
        const deadline = Date.now() + 15_000;
        while (Date.now() < deadline && alive(pid)) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      rmSync(home, { recursive: true, force: true });
    }
  }, 60_000);
});

/** The pid in the started studio's server.json, if it wrote one. */
function startedPid(home: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(join(home, 'server.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
