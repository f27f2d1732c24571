import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etaLane } from '../../src/studio/lanes/eta/index.js';
import { zetaLane } from '../../src/studio/lanes/zeta/index.js';
import { startDemoStudio, type DemoStudio } from '../helpers/studio.js';
import { startMcpRig, type McpRig } from './mcp-rig.js';

// zeta and eta as image lanes: their image models run as ordinary image jobs
// (the lane's image steps: uploads and the submit, then polls), so every image
// surface reaches them: POST /api/generate, /v1/images/generations, the MCP
// server's generate_image. eta stays locked (409 MCP_EXECUTION_LOCKED) on
// every surface until SVC_ETA_EXECUTABLE unlocks it. Their video models are
// the lanes' video capability, their limits read from each model's
// declarations.

interface HistoryItem {
  filename: string;
  provider: string;
  model: string;
  prompt: string;
  kind: string;
}

describe('on a demo studio (the Bar)', () => {
  let studio: DemoStudio;
  let mcp: Client;
  const history = async (): Promise<HistoryItem[]> =>
    ((await (await studio.request('/api/history')).json()) as { items: HistoryItem[] }).items;

  beforeAll(async () => {
    studio = await startDemoStudio('svc-mcp-image-');
    mcp = new Client({ name: 'test-client', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${studio.url}/mcp`)));
  }, 60_000);
  afterAll(async () => {
    await mcp?.close();
    await studio?.stop();
  });

  it('/v1/images/generations with model zeta/<image model> answers a PNG that is then in history', async () => {
    const prompt = 'a paper kite over dunes, v1 on zeta';
    const response = await studio.request('/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'zeta/nano-banana-pro', prompt }),
    });
    const body = (await response.json()) as { data: { b64_json: string }[] };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toHaveLength(1);
    expect((await sharp(Buffer.from(body.data[0].b64_json, 'base64')).metadata()).format).toBe('png');
    expect((await history()).find((item) => item.prompt === prompt)).toMatchObject({
      provider: 'zeta',
      model: 'nano-banana-pro',
      kind: 'generate',
    });
  }, 60_000);

  it("the MCP server's generate_image with a zeta model returns the image and its history name", async () => {
    const result = (await mcp.callTool({
      name: 'generate_image',
      arguments: { prompt: 'a red lantern, mcp tool on zeta', provider: 'zeta', model: 'gen-4' },
    })) as CallToolResult;
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { history: names } = result.structuredContent as { history: string[] };
    expect(names).toHaveLength(1);
    const image = result.content.find((block) => block.type === 'image') as { data: string; mimeType: string } | undefined;
    expect(image?.mimeType).toMatch(/^image\//);
    expect(Buffer.from(image?.data ?? '', 'base64').length).toBeGreaterThan(100);
    expect((await history()).find((item) => item.filename === names[0])).toMatchObject({ provider: 'zeta', model: 'gen-4' });
  }, 60_000);

  it('eta is locked on every image surface: 409 MCP_EXECUTION_LOCKED', async () => {
    const viaApi = await studio.request('/api/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x', provider: 'eta' }),
    });
    expect(viaApi.status).toBe(409);
    expect(((await viaApi.json()) as { error: { code: string } }).error.code).toBe('MCP_EXECUTION_LOCKED');
    const viaTool = (await mcp.callTool({ name: 'generate_image', arguments: { prompt: 'x', provider: 'eta' } })) as CallToolResult;
    expect(viaTool.isError).toBe(true);
    expect(JSON.stringify(viaTool.content)).toContain('MCP_EXECUTION_LOCKED');
    // The video route resolves the model before the lane's preflight: eta's live catalog must have been read once (here by its listing).
    expect((await studio.request('/api/mcp/models?provider=eta')).status).toBe(200);
    const viaVideo = await studio.request('/api/video/generate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'x', provider: 'eta' }),
    });
    expect(((await viaVideo.json()) as { error: { code: string } }).error.code).toBe('MCP_EXECUTION_LOCKED');
    expect(viaVideo.status).toBe(409);
  });
});

describe('POST /api/generate on the MCP lanes', () => {
  let rig: McpRig;
  const generate = (body: Record<string, unknown>) => rig.post('/api/generate', body);
  const zetaCalls = (tool: string) => rig.zeta.host.calls.filter((call) => call.tool === tool);

  beforeAll(async () => {
    rig = await startMcpRig({ latencyMs: 200, env: { SVC_ETA_EXECUTABLE: '1' } });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it('provider zeta: the model, its ratio and parameters as options, references uploaded; the image is in history', async () => {
    const first = await generate({ prompt: 'a glass teapot on zeta', provider: 'zeta', model: 'gpt-image-2', options: { ratio: '3:2' } });
    const made = (await first.json()) as {
      provider: string;
      model: string;
      images: { filename: string; format: string }[];
      settings: { taskId: string };
    };
    expect(first.status, JSON.stringify(made)).toBe(200);
    expect(made).toMatchObject({
      provider: 'zeta',
      model: 'gpt-image-2',
      images: [{ format: 'png' }],
      settings: { taskId: expect.any(String) },
    });
    expect(zetaCalls('generate_image').at(-1)?.arguments).toMatchObject({
      model: 'gpt-image-2',
      promptText: 'a glass teapot on zeta',
      ratio: '3:2',
      count: 1,
    });

    const second = await generate({ prompt: 'the teapot in snow', provider: 'zeta', references: [made.images[0].filename] });
    expect(second.status, await second.clone().text()).toBe(200);
    expect(zetaCalls('init_upload')).toHaveLength(1);
    expect(zetaCalls('generate_image').at(-1)?.arguments).toMatchObject({
      model: 'nano-banana-pro',
      referenceImages: [{ url: expect.stringMatching(/\/files\//) }],
    });
  }, 60_000);

  it('refuses a ratio the model does not declare and an option it does not take, before any tool call', async () => {
    const before = zetaCalls('generate_image').length;
    const ratio = await generate({ prompt: 'x', provider: 'zeta', model: 'gen-4', options: { ratio: '5:4' } });
    expect(ratio.status).toBe(400);
    expect(JSON.stringify(await ratio.json())).toContain('options.ratio');
    const unknown = await generate({ prompt: 'x', provider: 'zeta', options: { steps: 4 } });
    expect(unknown.status).toBe(400);
    expect(zetaCalls('generate_image')).toHaveLength(before);
  });

  it('provider eta, once executable, generates through its live catalog', async () => {
    const answer = await generate({ prompt: 'a moth on eta', provider: 'eta', model: 'soul_2', options: { ratio: '1:1' } });
    const body = (await answer.json()) as { provider: string; model: string; images: { filename: string }[] };
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ provider: 'eta', model: 'soul_2' });
    const submit = rig.eta.host.calls.filter((call) => call.tool === 'generate_image').at(-1);
    expect(submit?.arguments).toMatchObject({ params: { model: 'soul_2', prompt: 'a moth on eta', aspect_ratio: '1:1', use_unlim: true } });
    // Its catalog read, its video capability lists its video models, the default among them, with limits from their declarations.
    const videos = etaLane.video?.models ?? [];
    expect(videos.map((model) => model.id)).toContain(etaLane.video?.defaultModel);
    expect(videos.find((model) => model.id === 'cinematic_studio_3_0')?.limits.modes).toContain('text-to-video');
  }, 60_000);
});

describe('POST /api/video/generate on zeta', () => {
  let rig: McpRig;
  const zetaCalls = (tool: string) => rig.zeta.host.calls.filter((call) => call.tool === tool);

  beforeAll(async () => {
    rig = await startMcpRig({ latencyMs: 200 });
  }, 60_000);
  afterAll(async () => {
    await rig?.stop();
  });

  it('a zeta video model makes an MP4 in history; its declared limits and own options apply', async () => {
    const answer = await rig.post('/api/video/generate', {
      prompt: 'a kite over the sea',
      provider: 'zeta',
      model: 'seedance-2',
      duration: 4,
      aspectRatio: '9:16',
      options: { generateAudio: false },
    });
    const body = (await answer.json()) as { video?: { filename: string; format: string; provider: string; model: string } };
    expect(answer.status, JSON.stringify(body)).toBe(200);
    expect(body.video).toMatchObject({ format: 'mp4', provider: 'zeta', model: 'seedance-2' });
    expect(zetaCalls('generate_video').at(-1)?.arguments).toMatchObject({
      model: 'seedance-2',
      promptText: 'a kite over the sea',
      duration: 4,
      ratio: '9:16',
      generateAudio: false,
    });
    const history = (await (await rig.studio.request('/api/history')).json()) as { items: { filename: string; format: string }[] };
    expect(history.items.find((item) => item.filename === body.video?.filename)).toMatchObject({ format: 'mp4' });

    const outOfRange = await rig.post('/api/video/generate', { prompt: 'x', provider: 'zeta', model: 'seedance-2', duration: 30 });
    expect(outOfRange.status).toBe(400);
    expect(((await outOfRange.json()) as { error: { code: string } }).error.code).toBe('VIDEO_DURATION_OUT_OF_RANGE');
  }, 90_000);
});

describe("zeta's video capability", () => {
  it('lists its video models with limits read from their declarations', () => {
    const video = zetaLane.video;
    expect(video?.defaultModel).toBe('seedance-2');
    const byId = new Map(video?.models.map((model) => [model.id, model]));
    expect(byId.get('seedance-2')?.limits).toMatchObject({
      modes: ['text-to-video', 'image-to-video', 'reference-to-video'],
      durations: { min: 4, max: 15 },
      resolutions: ['480p', '720p', '1080p'],
      defaultDuration: 10,
      references: { min: 2, max: 3 },
    });
    expect(byId.get('veo-3.1')?.limits).toMatchObject({ durations: { values: [4, 6, 8] }, defaultDuration: 8 });
    expect(byId.get('gen-4-turbo')?.limits.modes).toEqual(['image-to-video']);
    // The other parameters are the model's own options; image models are not video models.
    expect(byId.get('seedance-2')?.options?.safeParse({ generateAudio: false }).success).toBe(true);
    expect(byId.get('seedance-2')?.options?.safeParse({ steps: 3 }).success).toBe(false);
    expect(byId.has('nano-banana-pro')).toBe(false);
  });
});
