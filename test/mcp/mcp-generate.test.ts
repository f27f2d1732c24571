import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../lanes/gamma-delta-epsilon-rig.js';
import { startMcpRig, type McpRig } from './mcp-rig.js';

// POST /api/mcp/generate end to end: the studio's MCP client against the two
// simulated MCP servers (the SDK's server over Streamable HTTP), the job
// engine polling the task, the file landing in history, the events in order.

let rig: McpRig;

beforeAll(async () => {
  rig = await startMcpRig();
});

afterAll(() => rig?.stop());

const toolCalls = (tool: string) => rig.zeta.host.calls.filter((call) => call.tool === tool);

describe('zeta over MCP', () => {
  it('an image: 202, then submitted, progress (queued, running, downloading), done with the PNG in history', async () => {
    const accepted = await rig.post('/api/mcp/generate', {
      provider: 'zeta',
      kind: 'image',
      prompt: 'a kite over dunes',
      model: 'nano-banana-pro',
      ratio: '16:9',
      requestId: 'zeta-image-1',
    });
    expect(accepted.status).toBe(202);
    expect(await accepted.json()).toEqual({ ok: true, requestId: 'zeta-image-1', status: 'accepted', provider: 'zeta', kind: 'image' });
    const events = await rig.until('zeta-image-1');
    const names = events
      .filter((event) => event.event !== 'phase')
      .map((event) => (event.event === 'progress' ? `progress:${String(event.phase)}` : event.event));
    expect(names).toEqual(['submitted', 'progress:provider-queued', 'progress:provider-running', 'progress:downloading', 'done']);
    const done = events.at(-1) as unknown as {
      result: {
        asset: { filename: string; format: string; width: number; height: number; provider: string; model: string };
        taskId: string;
        media: string;
      };
    };
    expect(done.result).toMatchObject({
      media: 'image',
      asset: { format: 'png', width: 1024, height: 576, provider: 'zeta', model: 'nano-banana-pro' },
    });
    const file = await rig.studio.request(`/generated/${done.result.asset.filename}`);
    expect(file.status).toBe(200);
    expect(
      Buffer.from(await file.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    const history = (await (await rig.studio.request('/api/history?provider=zeta')).json()) as {
      items: { filename: string; prompt: string }[];
    };
    expect(history.items.map((item) => item.filename)).toContain(done.result.asset.filename);
    // The submit went once, with the contract's arguments; the polls named its task.
    const submits = toolCalls('generate_image');
    expect(submits).toHaveLength(1);
    expect(submits[0].arguments).toMatchObject({
      rationale: expect.any(String),
      promptText: 'a kite over dunes',
      model: 'nano-banana-pro',
      ratio: '16:9',
      count: 1,
    });
    expect(new Set(toolCalls('get_task').map((call) => call.arguments.id))).toEqual(new Set([done.result.taskId]));
    // One session for every call.
    expect(new Set(rig.zeta.host.calls.map((call) => call.sessionId)).size).toBe(1);
  }, 30_000);

  it('a video: a real MP4 of the asked duration lands in history with its poster and facts', async () => {
    const accepted = await rig.post('/api/mcp/generate', {
      provider: 'zeta',
      kind: 'video',
      prompt: 'a kite',
      model: 'seedance-2',
      parameters: { duration: 4 },
      requestId: 'zeta-video-1',
    });
    expect(accepted.status).toBe(202);
    const events = await rig.until('zeta-video-1', 60_000);
    const done = events.at(-1) as unknown as {
      event: string;
      result: { asset: { filename: string; format: string; video: { durationSeconds: number; codec: string } } };
    };
    expect(done.event).toBe('done');
    expect(done.result.asset).toMatchObject({ format: 'mp4', video: { codec: 'h264' } });
    expect(done.result.asset.video.durationSeconds).toBeCloseTo(4, 0);
    expect(toolCalls('generate_video').at(-1)?.arguments).toMatchObject({ model: 'seedance-2', duration: 4, promptText: 'a kite' });
  }, 70_000);

  it('validation answers 400 naming the field, before any tool call', async () => {
    const before = rig.zeta.host.calls.length;
    const unknown = await expectError(
      await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'video', prompt: 'x', model: 'seedance-2', parameters: { fps: 30 } }),
      400,
      'MCP_PARAMETER_UNSUPPORTED',
    );
    expect(unknown.error.details).toMatchObject({ field: 'parameters.fps', parameter: 'fps' });
    await expectError(
      await rig.post('/api/mcp/generate', {
        provider: 'zeta',
        kind: 'video',
        prompt: 'x',
        model: 'seedance-2',
        parameters: { duration: 30 },
      }),
      400,
      'MCP_PARAMETER_INVALID',
    );
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'video', prompt: 'x', model: 'gen-4-turbo' }),
      400,
      'MCP_INPUT_ROLE_REQUIRED',
    );
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'x', model: 'seedance-2' }),
      400,
      'MCP_MODEL_UNSUPPORTED',
    );
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'x', ratio: '7:5' }),
      400,
      'MCP_PARAMETER_INVALID',
    );
    await expectError(await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'audio', prompt: 'x' }), 400, 'INVALID_KIND');
    await expectError(
      await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'video', prompt: 'x', parameters: { duration: [4] } }),
      400,
      'INVALID_MCP_PARAMETERS',
    );
    await expectError(await rig.post('/api/mcp/generate', { provider: 'gamma', kind: 'image', prompt: 'x' }), 400, 'MCP_PROVIDER_UNKNOWN');
    await expectError(await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: '  ' }), 400, 'INVALID_PROMPT');
    await expectError(
      await rig.post('/api/mcp/generate', {
        provider: 'zeta',
        kind: 'video',
        prompt: 'x',
        endFrameFilename: 'nope.png',
        model: 'seedance-2',
      }),
      404,
      'REFERENCE_NOT_FOUND',
    );
    expect(rig.zeta.host.calls.length).toBe(before);
  });

  it('task failures end in the contract codes', async () => {
    await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'boom [sim:failed]', requestId: 'zeta-failed' });
    await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'gone [sim:canceled]', requestId: 'zeta-canceled' });
    await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'empty [sim:no-url]', requestId: 'zeta-no-url' });
    await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'anon [sim:no-id]', requestId: 'zeta-no-id' });
    const codeOf = async (id: string) => ((await rig.until(id)).at(-1) as unknown as { error?: { code: string; message: string } }).error;
    expect(await codeOf('zeta-failed')).toMatchObject({
      code: 'MCP_TASK_FAILED',
      message: expect.stringMatching(/^MCP_TASK_FAILED:[0-9a-f-]{36}:/),
    });
    expect((await codeOf('zeta-canceled'))?.code).toBe('MCP_TASK_CANCELED');
    expect((await codeOf('zeta-no-url'))?.code).toBe('MCP_RESULT_URL_MISSING');
    expect((await codeOf('zeta-no-id'))?.code).toBe('MCP_TASK_ID_MISSING');
  }, 30_000);

  it('a dropped session is initialised again and the job still finishes', async () => {
    await rig.zeta.host.dropSessions();
    expect(
      (await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'after a drop', requestId: 'zeta-redo' })).status,
    ).toBe(202);
    expect((await rig.until('zeta-redo')).at(-1)?.event).toBe('done');
    expect(toolCalls('generate_image').filter((call) => call.arguments.promptText === 'after a drop')).toHaveLength(1);
  }, 30_000);

  it('gallery files are uploaded through the presigned flow and passed as references', async () => {
    const source = rig.events.find((event) => event.requestId === 'zeta-image-1' && event.event === 'done') as unknown as {
      result: { asset: { filename: string } };
    };
    const accepted = await rig.post('/api/mcp/generate', {
      provider: 'zeta',
      kind: 'image',
      prompt: 'the same kite at night',
      references: [{ filename: source.result.asset.filename, tag: 'kite' }],
      requestId: 'zeta-ref',
    });
    expect(accepted.status).toBe(202);
    const events = await rig.until('zeta-ref');
    expect(events.at(-1)?.event).toBe('done');
    expect(events.filter((event) => event.event === 'progress' && event.phase === 'uploading')).toHaveLength(1);
    expect(toolCalls('init_upload')).toHaveLength(1);
    expect(toolCalls('complete_upload')[0].arguments).toMatchObject({ parts: [{ partNumber: 1, etag: expect.any(String) }] });
    expect(toolCalls('generate_image').at(-1)?.arguments.referenceImages).toEqual([
      { url: expect.stringMatching(/\/files\//), tag: 'kite' },
    ]);
  }, 30_000);
});

describe('eta over MCP', () => {
  it('is locked by default: 409 MCP_EXECUTION_LOCKED with the reason, and no generation tool is called', async () => {
    const locked = await expectError(
      await rig.post('/api/mcp/generate', { provider: 'eta', kind: 'image', prompt: 'x' }),
      409,
      'MCP_EXECUTION_LOCKED',
    );
    expect(locked.error.message).toMatch(/catalog-only/);
    expect(rig.eta.host.calls.filter((call) => call.tool.startsWith('generate_'))).toHaveLength(0);
  });

  it('lists its live catalog with kinds, ratios, roles and parameters; /api/providers says locked', async () => {
    const body = (await (await rig.studio.request('/api/mcp/models?provider=eta')).json()) as {
      status: { state: string };
      models: { id: string; kind: string; inputRoles: string[]; parameters: { name: string }[] }[];
    };
    expect(body.status.state).toBe('locked');
    expect(body.models.find((model) => model.id === 'soul_2')).toMatchObject({
      kind: 'image',
      inputRoles: ['text', 'image_references'],
      parameters: [{ name: 'quality' }],
    });
    expect(body.models.find((model) => model.id === 'cinematic_studio_3_0')?.parameters.map((entry) => entry.name)).toEqual([
      'resolution',
      'duration',
    ]);
    // /api/capabilities: zeta's static catalog and eta's last read, parameters as each model's options.
    const capabilities = (await (await rig.studio.request('/api/capabilities')).json()) as {
      providers: { id: string; models?: string[]; defaultModel?: string | null }[];
      models: { id: string; kind: string; description: string; options?: { properties: Record<string, unknown> } }[];
    };
    expect(capabilities.providers.find((entry) => entry.id === 'eta')).toMatchObject({
      defaultModel: 'soul_2',
      models: expect.arrayContaining(['soul_2', 'cinematic_studio_3_0']),
    });
    expect(capabilities.providers.find((entry) => entry.id === 'zeta')).toMatchObject({ defaultModel: 'nano-banana-pro' });
    const seedance = capabilities.models.find((model) => model.id === 'seedance-2');
    expect(seedance).toMatchObject({
      kind: 'video',
      description: expect.stringContaining('start_image'),
      options: { properties: { duration: { minimum: 4, maximum: 15 } } },
    });
    const providers = (await (await rig.studio.request('/api/providers')).json()) as {
      providers: { id: string; state: string; reason: string }[];
    };
    expect(providers.providers.find((entry) => entry.id === 'eta')).toMatchObject({ state: 'locked' });
    expect(providers.providers.find((entry) => entry.id === 'zeta')).toMatchObject({ state: 'ready' });
  });
});

describe('the MCP client', () => {
  it('a submit cut by the network is never sent again: the job fails with MCP_TRANSPORT_OFFLINE', async () => {
    expect(
      (await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'cut [sim:drop]', requestId: 'zeta-drop' })).status,
    ).toBe(202);
    const error = (await rig.until('zeta-drop')).at(-1) as unknown as { error: { code: string } };
    expect(error.error.code).toBe('MCP_TRANSPORT_OFFLINE');
    expect(toolCalls('generate_image').filter((call) => call.arguments.promptText === 'cut [sim:drop]')).toHaveLength(1);
    // The next job gets a fresh session and runs.
    expect(
      (await rig.post('/api/mcp/generate', { provider: 'zeta', kind: 'image', prompt: 'after the cut', requestId: 'zeta-after-drop' }))
        .status,
    ).toBe(202);
    expect((await rig.until('zeta-after-drop')).at(-1)?.event).toBe('done');
  }, 30_000);

  it('a refused token is MCP_AUTH_FAILED', async () => {
    const { mcpConnections } = await import('../../src/studio/lanes/mcp-media/servers.js');
    await expect(
      (await mcpConnections(rig.studio.ctx)).call(
        { lane: 'zeta', endpoint: rig.zeta.endpoint, token: 'not-the-token' },
        'get_task',
        { id: 'x' },
        { timeoutMs: 5000 },
      ),
    ).rejects.toMatchObject({ code: 'MCP_AUTH_FAILED' });
  });

  it('never calls a deny-listed billing tool', async () => {
    const { mcpConnections, mcpTarget } = await import('../../src/studio/lanes/mcp-media/servers.js');
    const { zetaDialect } = await import('../../src/studio/lanes/zeta/dialect.js');
    await expect(
      (await mcpConnections(rig.studio.ctx)).call(
        mcpTarget(rig.studio.ctx, zetaDialect),
        'confirm_billing_purchase',
        {},
        { timeoutMs: 5000 },
      ),
    ).rejects.toMatchObject({ code: 'MCP_TOOL_FAILED' });
    expect(rig.zeta.host.calls.filter((call) => call.tool === 'confirm_billing_purchase')).toHaveLength(0);
  });

  it('refuses an endpoint off the allow-list', async () => {
    const { endpointRefusal } = await import('../../src/studio/lanes/mcp-media/servers.js');
    const { zetaDialect } = await import('../../src/studio/lanes/zeta/dialect.js');
    expect(endpointRefusal(zetaDialect, 'https://mcp.runwayml.com/mcp')).toBeUndefined();
    expect(endpointRefusal(zetaDialect, 'http://127.0.0.1:9/mcp')).toBeUndefined();
    expect(endpointRefusal(zetaDialect, 'https://evil.example/mcp')).toMatch(/allow-list/);
    expect(endpointRefusal(zetaDialect, 'http://10.0.0.2/mcp')).toMatch(/allow-list/);
  });
});
