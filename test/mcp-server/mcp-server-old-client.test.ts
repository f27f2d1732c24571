import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { startDemo } from '../../src/demo/demo.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// Issue 46, item 1: a client of an older MCP protocol (2024-11-05, 2025-03-26:
// SDK 1.0.x–1.12.x) gets only the content types its protocol has — no
// `resource_link`, which those SDKs throw on after the job has run. Driven by a
// raw JSON-RPC client over Streamable HTTP, as such a client speaks it.

/** The content types of CallToolResult in MCP 2024-11-05 (and 2025-03-26 adds only `audio`). */
const OLD_CONTENT_TYPES = ['text', 'image', 'resource'];

interface Content {
  type: string;
  uri?: string;
  text?: string;
  resource?: { uri: string; mimeType?: string; blob?: string; text?: string };
}
interface ToolResult {
  content: Content[];
  isError?: boolean;
  structuredContent?: { history?: string[] };
}

/** A minimal MCP client: JSON-RPC over Streamable HTTP, reading each answer from its SSE (or JSON) body. */
class RawMcpClient {
  private sessionId: string | undefined;
  private nextId = 1;
  constructor(
    private readonly url: string,
    private readonly protocolVersion: string,
  ) {}

  private async post(message: Record<string, unknown>): Promise<Response> {
    return fetch(`${this.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
        // 2024-11-05 clients send no protocol header; later ones do after initialize.
        ...(this.sessionId && this.protocolVersion >= '2025-06-18' ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', ...message }),
    });
  }

  async request<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const id = this.nextId++;
    const response = await this.post({ id, method, params });
    expect(response.status).toBe(200);
    this.sessionId ??= response.headers.get('mcp-session-id') ?? undefined;
    if (response.headers.get('content-type')?.startsWith('application/json')) return ((await response.json()) as { result: T }).result;
    for await (const frame of readSse(response.body as ReadableStream<Uint8Array>)) {
      const message = JSON.parse(frame.data) as { id?: number; result?: T; error?: unknown };
      if (message.id === id) {
        if (message.error) throw new Error(JSON.stringify(message.error));
        return message.result as T;
      }
    }
    throw new Error(`no answer to ${method}`);
  }

  async initialize(): Promise<{ protocolVersion: string }> {
    const answer = await this.request<{ protocolVersion: string }>('initialize', {
      protocolVersion: this.protocolVersion,
      capabilities: {},
      clientInfo: { name: 'old-client', version: '1.0.4' },
    });
    const initialized = await this.post({ method: 'notifications/initialized' });
    expect(initialized.status).toBe(202);
    return answer;
  }

  callTool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    return this.request<ToolResult>('tools/call', { name, arguments: args });
  }
}

let studio: TestStudio;

beforeAll(async () => {
  const home = makeTempHome('svc-mcp-old-client-');
  const demo = await startDemo({ SVC_HOME: home });
  studio = await startTestStudio({ env: { SVC_HOME: home, SVC_VIDEO_POLL_MS: '200' }, demo: demo.options, onClose: () => demo.close() });
}, 60_000);

afterAll(async () => {
  await studio?.stop();
});

const types = (result: ToolResult) => result.content.map((block) => block.type);

describe('an MCP client of protocol 2024-11-05', () => {
  it('gets a video as an embedded resource, never a resource_link', async () => {
    const client = new RawMcpClient(studio.url, '2024-11-05');
    expect((await client.initialize()).protocolVersion).toBe('2024-11-05');
    const result = await client.callTool('generate_video', { prompt: 'waves at dusk', duration: 2 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const filename = result.structuredContent?.history?.[0] as string;
    expect(filename).toMatch(/\.mp4$/);
    for (const type of types(result)) expect(OLD_CONTENT_TYPES).toContain(type);
    const video = result.content.find((block) => block.type === 'resource');
    expect(video?.resource).toMatchObject({ uri: `svc://history/${filename}`, mimeType: 'video/mp4', blob: expect.any(String) });
    const served = Buffer.from(await (await studio.request(`/generated/${encodeURIComponent(filename)}`)).arrayBuffer());
    expect(Buffer.from(video?.resource?.blob as string, 'base64').equals(served)).toBe(true);

    // get_asset of the same video: the same content types.
    const asset = await client.callTool('get_asset', { filename });
    expect(types(asset)).toEqual(['text', 'resource']);
  }, 60_000);

  it('gets a trace as its SVG text in an embedded resource', async () => {
    const client = new RawMcpClient(studio.url, '2024-11-05');
    await client.initialize();
    const image = await client.callTool('generate_image', { prompt: 'a red square', provider: 'gamma' });
    const source = image.structuredContent?.history?.[0] as string;
    const traced = await client.callTool('trace_to_svg', { source, preset: 'poster' });
    expect(traced.isError, JSON.stringify(traced.content)).toBeFalsy();
    for (const type of types(traced)) expect(OLD_CONTENT_TYPES).toContain(type);
    const svg = traced.content.find((block) => block.type === 'resource');
    expect(svg?.resource).toMatchObject({ mimeType: 'image/svg+xml', text: expect.stringContaining('<svg') });
  }, 60_000);
});

describe('an MCP client of protocol 2025-03-26', () => {
  it('gets no resource_link either', async () => {
    const client = new RawMcpClient(studio.url, '2025-03-26');
    expect((await client.initialize()).protocolVersion).toBe('2025-03-26');
    const result = await client.callTool('generate_video', { prompt: 'a kite', duration: 2 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect(types(result)).not.toContain('resource_link');
  }, 60_000);
});

describe('an MCP client of protocol 2025-06-18', () => {
  it('gets the video as a resource_link', async () => {
    const client = new RawMcpClient(studio.url, '2025-06-18');
    await client.initialize();
    const result = await client.callTool('generate_video', { prompt: 'rain on a window', duration: 2 });
    expect(types(result)).toContain('resource_link');
  }, 60_000);
});
