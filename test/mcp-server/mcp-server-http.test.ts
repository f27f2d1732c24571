import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../../src/demo/demo.js';
import { IMAGE_CONTENT_MAX_BYTES } from '../../src/studio/mcp-server/results.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// The studio as an MCP server over Streamable HTTP at /mcp, driven by the
// SDK's own client against a demo studio (every lane on its simulator): the
// Bar (tools listed, generate_image returns the image and its history name, a
// generate_video task completes with progress), cancel, errors with the
// studio's code, resources, and the API's Origin and token rules.

let studio: TestStudio;
let client: Client;

/** A demo studio (as startDemoStudio) with a short video poll, so a video takes a few seconds. */
async function startDemoStudio(options: { token?: string } = {}): Promise<TestStudio> {
  const home = makeTempHome('svc-mcp-server-');
  const demo = await startDemo({ SVC_HOME: home });
  return startTestStudio({
    env: { SVC_HOME: home, SVC_VIDEO_POLL_MS: '200', SVC_MCP_POLL_MS: '300' },
    demo: demo.options,
    onClose: () => demo.close(),
    ...options,
  });
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const mcp = new Client({ name: 'test-client', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers } }));
  return mcp;
}

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** Polls job_status until the job has ended (bounded). */
async function finished(requestId: string, timeoutMs = 20_000): Promise<{ state: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call('job_status', { requestId });
    const job = (answer.structuredContent as { job: { state: string; finishedAt?: string | null } }).job;
    if (job.finishedAt) return job;
    if (Date.now() > deadline) throw new Error(`job ${requestId} still ${job.state} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  studio = await startDemoStudio();
  client = await connect(studio.url);
}, 60_000);

afterAll(async () => {
  await client?.close();
  await studio?.stop();
});

describe('MCP over Streamable HTTP at /mcp (Bar)', () => {
  it('lists the nine tools with their JSON Schemas and descriptions', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'cancel_job',
      'edit_image',
      'generate_image',
      'generate_video',
      'get_asset',
      'job_status',
      'list_history',
      'list_models',
      'trace_to_svg',
    ]);
    const generate = tools.find((tool) => tool.name === 'generate_image');
    expect(generate?.description).toMatch(/history/);
    expect(generate?.inputSchema).toMatchObject({ type: 'object', required: ['prompt'], additionalProperties: false });
    const properties = generate?.inputSchema.properties as Record<string, { description?: string; type?: string; enum?: string[] }>;
    expect(properties.prompt).toMatchObject({ type: 'string', description: expect.any(String) });
    expect(properties.provider.enum).toContain('gamma');
    expect(properties.async).toBeUndefined();
    expect(generate?.execution).toEqual({ taskSupport: 'optional' });
    expect(
      (tools.find((tool) => tool.name === 'generate_video')?.inputSchema.properties as Record<string, unknown>).storyboard,
    ).toBeDefined();
  });

  it('generate_image returns the image as image content and its history name, and the asset is in /api/history', async () => {
    const result = await call('generate_image', { prompt: 'a lighthouse at dusk', provider: 'gamma' });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { history, requestId } = result.structuredContent as { history: string[]; requestId: string };
    expect(history).toHaveLength(1);
    const image = result.content.find((block) => block.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: expect.stringMatching(/^image\//) });
    const bytes = Buffer.from((image as { data: string }).data, 'base64');
    expect(bytes.length).toBeGreaterThan(100);
    expect(bytes.length).toBeLessThanOrEqual(IMAGE_CONTENT_MAX_BYTES);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining(history[0]) });
    const listed = (await (await studio.request('/api/history')).json()) as { items: { filename: string; requestId: string }[] };
    expect(listed.items.find((item) => item.filename === history[0])).toMatchObject({ requestId });
    // The job is a normal job: its record answers by requestId.
    expect(await finished(requestId)).toMatchObject({ state: 'succeeded' });
  }, 30_000);

  it('a generate_video task completes with progress notifications and status messages', async () => {
    const progress: Progress[] = [];
    const kinds: string[] = [];
    let final: CallToolResult | undefined;
    const stream = client.experimental.tasks.callToolStream(
      { name: 'generate_video', arguments: { prompt: 'waves at dusk', duration: 2 } },
      CallToolResultSchema,
      {
        onprogress: (step) => void progress.push(step),
        timeout: 60_000,
      },
    );
    for await (const message of stream) {
      kinds.push(message.type);
      if (message.type === 'result') final = message.result as CallToolResult;
      if (message.type === 'error') throw message.error;
    }
    expect(kinds[0]).toBe('taskCreated');
    expect(kinds.at(-1)).toBe('result');
    expect(final?.isError, JSON.stringify(final?.content)).toBeFalsy();
    const { history } = final?.structuredContent as { history: string[] };
    expect(history[0]).toMatch(/\.mp4$/);
    expect(final?.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `svc://history/${history[0]}`, mimeType: 'video/mp4' }),
    );
    expect(progress.length).toBeGreaterThan(1);
    // MCP progress only grows.
    for (let index = 1; index < progress.length; index++) expect(progress[index].progress).toBeGreaterThan(progress[index - 1].progress);
    expect(progress.some((step) => /%/.test(step.message ?? ''))).toBe(true);
  }, 60_000);

  it("generate_video takes every video lane's models: zeta/seedance-2 makes an MP4 in history; list_models shows the video limits", async () => {
    const answer = await call('generate_video', { prompt: 'a kite over the dunes', model: 'zeta/seedance-2', duration: 4 });
    expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
    const { history } = answer.structuredContent as { history: string[] };
    expect(history[0]).toMatch(/\.mp4$/);
    const asset = (await (await fetch(`${studio.url}/api/history?provider=zeta`)).json()) as {
      items: { filename: string; model: string }[];
    };
    expect(asset.items.find((item) => item.filename === history[0])).toMatchObject({ model: 'seedance-2' });
    const listed = (await call('list_models', { provider: 'zeta' })).structuredContent as {
      lanes: { capabilities: string[]; video: { models: { id: string; limits: unknown }[] } }[];
    };
    expect(listed.lanes[0].capabilities).toContain('video');
    expect(listed.lanes[0].video.models.find((model) => model.id === 'seedance-2')?.limits).toMatchObject({
      durations: { min: 4, max: 15 },
    });
  }, 60_000);
});

describe('the other tools', () => {
  it('edit_image edits a history image, trace_to_svg traces it, get_asset reads it back', async () => {
    const made = await call('generate_image', { prompt: 'a blue teapot', provider: 'gamma' });
    const [source] = (made.structuredContent as { history: string[] }).history;
    const edited = await call('edit_image', { prompt: 'make it red', provider: 'gamma', image: source });
    expect(edited.isError, JSON.stringify(edited.content)).toBeFalsy();
    expect(edited.content.some((block) => block.type === 'image')).toBe(true);
    expect((edited.structuredContent as { history: string[] }).history[0]).not.toBe(source);

    const traced = await call('trace_to_svg', { source, preset: 'poster', filterSpeckle: 8 });
    expect(traced.isError, JSON.stringify(traced.content)).toBeFalsy();
    const [svg] = (traced.structuredContent as { history: string[] }).history;
    expect(svg).toMatch(/\.svg$/);
    expect(traced.content).toContainEqual(
      expect.objectContaining({ type: 'resource_link', uri: `svc://history/${svg}`, mimeType: 'image/svg+xml' }),
    );
    const badParameter = await call('trace_to_svg', { source, filterSpeckle: 1000 });
    expect(badParameter.structuredContent).toMatchObject({ error: { code: 'TRACE_PARAMETER_INVALID' } });

    const asset = await call('get_asset', { filename: source });
    expect(asset.structuredContent).toMatchObject({ asset: { filename: source, provider: 'gamma' } });
    expect(asset.content[1]).toMatchObject({ type: 'image' });
  }, 30_000);
});

describe('MCP tasks, cancel and errors', () => {
  it('tasks/cancel cancels the job: it ends cancelled', async () => {
    const stream = client.experimental.tasks.callToolStream(
      { name: 'generate_video', arguments: { prompt: 'a slow tide', duration: 5, requestId: 'mcp-cancel-1' } },
      CallToolResultSchema,
      { timeout: 30_000 },
    );
    let taskId: string | undefined;
    for await (const message of stream) {
      if (message.type === 'taskCreated') taskId = message.task.taskId;
      if (message.type === 'taskStatus' && taskId) break;
    }
    expect(taskId).toBeDefined();
    const cancelled = await client.experimental.tasks.cancelTask(taskId as string);
    expect(cancelled.status).toBe('cancelled');
    expect(await finished('mcp-cancel-1')).toMatchObject({ state: 'cancelled' });
  }, 40_000);

  it('cancel_job cancels a running task-less call: the call answers JOB_CANCELLED', async () => {
    const running = call('generate_video', { prompt: 'a slow tide', duration: 5, requestId: 'mcp-cancel-2' });
    // The job exists once job_status knows it.
    const deadline = Date.now() + 10_000;
    while (!(await call('job_status', { requestId: 'mcp-cancel-2' })).structuredContent?.job) {
      if (Date.now() > deadline) throw new Error('the job never appeared');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await call('cancel_job', { requestId: 'mcp-cancel-2' });
    expect(answer.structuredContent).toMatchObject({ cancelled: true });
    const result = await running;
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: 'JOB_CANCELLED' }, requestId: 'mcp-cancel-2' });
    expect(await finished('mcp-cancel-2')).toMatchObject({ state: 'cancelled' });
  }, 40_000);

  it("a bad input answers isError with the studio's code (as the HTTP API would)", async () => {
    const typo = await call('generate_image', { prompt: 'a fox', qualty: 'high' });
    expect(typo.isError).toBe(true);
    expect(typo.structuredContent).toMatchObject({ error: { code: 'BAD_REQUEST', details: { unknown: ['qualty'] } } });
    expect((typo.content[0] as { text: string }).text).toMatch(/^BAD_REQUEST: /);
    const http = (await (
      await studio.request('/api/generate', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: 'a fox', qualty: 'high' }),
      })
    ).json()) as { error: { code: string; details: { unknown: string[] } } };
    expect(typo.structuredContent).toMatchObject({ error: { code: http.error.code, details: { unknown: http.error.details.unknown } } });
    const missing = await call('get_asset', { filename: 'nope.png' });
    expect(missing.structuredContent).toMatchObject({ error: { code: expect.stringMatching(/NOT_FOUND/) } });
    const unknownJob = await call('job_status', { requestId: 'never-made' });
    expect(unknownJob.structuredContent).toMatchObject({ error: { code: 'JOB_NOT_FOUND' } });
  });

  it('list_models names the lanes and their models', async () => {
    const answer = await call('list_models', { provider: 'gamma' });
    const { lanes } = answer.structuredContent as { lanes: { id: string; models: string[] }[] };
    expect(lanes).toHaveLength(1);
    expect(lanes[0].id).toBe('gamma');
    expect(lanes[0].models.length).toBeGreaterThan(0);
  });
});

describe('history as MCP resources', () => {
  it('resources/list pages history as svc://history/<name>; resources/read answers the bytes with their mimeType', async () => {
    const first = await client.listResources();
    expect(first.resources.length).toBeGreaterThan(0);
    const image = first.resources.find((resource) => resource.mimeType?.startsWith('image/'));
    expect(image?.uri).toMatch(/^svc:\/\/history\//);
    const read = await client.readResource({ uri: image?.uri as string });
    const content = read.contents[0] as { blob: string; mimeType: string };
    expect(content.mimeType).toBe(image?.mimeType);
    const record = (await (await studio.request(`/api/history/${encodeURIComponent(image?.name as string)}`)).json()) as { url: string };
    const served = Buffer.from(await (await studio.request(record.url)).arrayBuffer());
    expect(Buffer.from(content.blob, 'base64').equals(served)).toBe(true);
    const listed = await call('list_history', { limit: 1 });
    const page = listed.structuredContent as { items: unknown[]; nextCursor: string | null };
    expect(page.items).toHaveLength(1);
    expect(page.nextCursor).toEqual(expect.any(String));
    await expect(client.readResource({ uri: 'svc://history/missing.png' })).rejects.toThrow(/NOT_FOUND/);
  });
});

describe('the API rules on /mcp', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
  };

  it('refuses a cross-origin POST with FORBIDDEN_ORIGIN', async () => {
    const response = await studio.request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', origin: 'https://evil.example' },
      body: JSON.stringify(initialize),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ error: { code: 'FORBIDDEN_ORIGIN' } });
  });

  it('an unknown session is a 404 a client can read', async () => {
    const response = await studio.request('/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'nope' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'NOT_FOUND' } } });
  });

  it('with a token, /mcp needs it (TOKEN_REQUIRED without; the SDK client with the header works)', async () => {
    const guarded = await startDemoStudio({ token: 'mcp-test-token' });
    try {
      const refused = await guarded.request('/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initialize),
      });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'TOKEN_REQUIRED' } });
      await expect(connect(guarded.url)).rejects.toThrow();
      const allowed = await connect(guarded.url, { authorization: 'Bearer mcp-test-token' });
      expect((await allowed.listTools()).tools).toHaveLength(9);
      await allowed.close();
    } finally {
      await guarded.stop();
    }
  }, 30_000);

  it('the studio ends its MCP sessions when it shuts down (no open stream left for the grace timer to cut)', async () => {
    const other = await startDemoStudio();
    const session = await connect(other.url);
    await session.listTools();
    // The session's GET stream is open now; a stream still open at close is cut by closeAllConnections after the grace.
    const server = other.app.server;
    let cut = false;
    const closeAll = server.closeAllConnections.bind(server);
    server.closeAllConnections = () => {
      cut = true;
      closeAll();
    };
    await other.stop();
    expect(cut).toBe(false);
    await expect(session.listTools()).rejects.toThrow();
    await session.close();
  }, 30_000);
});
