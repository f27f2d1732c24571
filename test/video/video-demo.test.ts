import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { makeTempHome } from '../helpers/studio.js';
import { runSvc, startSvc, type RunningSvc } from '../helpers/svc.js';

// The bar on a demo studio (`svc serve --demo`, a real process):
// `svc video "waves at dusk" --duration 3 -o w.mp4` writes an MP4 that
// ffprobe reads as H.264 of about 3 s, and an async video's events on
// /api/events arrive as planning, submitted, progress…, done; a zeta video
// model (`zeta/<model>`) makes an MP4 in history through the same route.

const home = makeTempHome('svc-video-demo-');
let demo: RunningSvc;
let url: string;

beforeAll(async () => {
  demo = await startSvc(['serve', '--demo', '--port', '0', '--json'], { SVC_HOME: home, SVC_VIDEO_POLL_MS: '300', SVC_MCP_POLL_MS: '300' });
  url = String(demo.first.url);
});
afterAll(async () => {
  await demo?.stop();
  rmSync(home, { recursive: true, force: true });
});

const svc = (...args: string[]) => runSvc([...args, '--server', url], { SVC_HOME: home }, 60_000);

describe('video on `svc serve --demo`', () => {
  it('svc video "waves at dusk" --duration 3 -o w.mp4 writes an H.264 MP4 of about 3 s', async () => {
    const out = join(home, 'w.mp4');
    const run = await svc('video', 'waves at dusk', '--duration', '3', '-o', out, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    const probed = JSON.parse(
      execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', out], { encoding: 'utf8' }),
    ) as { streams: { codec_name: string }[]; format: { duration: string } };
    expect(probed.streams[0].codec_name).toBe('h264');
    expect(Math.abs(Number(probed.format.duration) - 3)).toBeLessThan(0.2);
    const result = JSON.parse(run.stdout) as { saved: string; video: { format: string; video: { durationSeconds: number } } };
    expect(result).toMatchObject({ saved: out, video: { format: 'mp4' } });
  }, 60_000);

  it('an async video publishes planning, submitted, progress…, done on /api/events', async () => {
    const controller = new AbortController();
    const response = await fetch(`${url}/api/events`, { signal: controller.signal });
    const names: string[] = [];
    const collected = (async () => {
      for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
        const event = JSON.parse(message.data) as { event: string; requestId?: string };
        if (event.requestId !== 'demo-async') continue;
        names.push(event.event);
        if (event.event === 'done' || event.event === 'error') return;
      }
    })();
    const accepted = await fetch(`${url}/api/video/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'waves at dusk', duration: 2, async: true, requestId: 'demo-async' }),
    });
    expect(accepted.status).toBe(202);
    await collected;
    controller.abort();
    // The engine's `phase: queued` comes first, as for every job; then the video's own events.
    const video = names.filter((name) => name !== 'phase');
    expect(video[0]).toBe('planning');
    expect(video[1]).toBe('submitted');
    expect(video.at(-1)).toBe('done');
    expect(video.slice(2, -1).length).toBeGreaterThan(0);
    expect(video.slice(2, -1).every((name) => name === 'progress')).toBe(true);
  }, 60_000);

  it('POST /api/video/generate with a zeta video model makes an MP4 in history, checked by its declared limits', async () => {
    const post = (path: string, body: Record<string, unknown>) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const response = await post('/api/video/generate', {
      prompt: 'a kite over the dunes',
      model: 'zeta/seedance-2',
      duration: 4,
      aspectRatio: '16:9',
      options: { generateAudio: false },
    });
    const result = (await response.json()) as {
      provider: string;
      model: string;
      mode: string;
      video: { filename: string; format: string; provider: string; model: string; video: { durationSeconds: number } };
    };
    expect(response.status, JSON.stringify(result)).toBe(200);
    expect(result).toMatchObject({
      provider: 'zeta',
      model: 'seedance-2',
      mode: 'text-to-video',
      video: { format: 'mp4', provider: 'zeta', model: 'seedance-2' },
    });
    expect(result.video.video.durationSeconds).toBeCloseTo(4, 0);
    const history = (await (await fetch(`${url}/api/history?provider=zeta`)).json()) as { items: { filename: string }[] };
    expect(history.items.map((item) => item.filename)).toContain(result.video.filename);

    // zeta's rules are its models' declared limits: veo-3.1 runs 4, 6 or 8 s; zeta does not edit.
    const duration = await post('/api/video/generate', { prompt: 'x', model: 'zeta/veo-3.1', duration: 5 });
    expect(duration.status).toBe(400);
    expect(await duration.json()).toMatchObject({ error: { code: 'VIDEO_DURATION_OUT_OF_RANGE', details: { valid: [4, 6, 8], got: 5 } } });
    const edit = await post('/api/video/edit', { provider: 'zeta', prompt: 'x', video: result.video.filename });
    expect(edit.status).toBe(400);
    expect(await edit.json()).toMatchObject({ error: { code: 'VIDEO_OPERATION_UNSUPPORTED' } });

    // eta's video models answer its execution lock, before anything else.
    const locked = await post('/api/video/generate', { prompt: 'x', model: 'eta/cinematic_studio_3_0' });
    expect(await locked.json()).toMatchObject({ error: { code: 'MCP_EXECUTION_LOCKED' } });

    // GET /api/capabilities lists zeta's capabilities and its video models with their limits.
    const capabilities = (await (await fetch(`${url}/api/capabilities`)).json()) as {
      providers: { id: string; capabilities?: string[]; video?: { models: { id: string; limits: unknown }[] } | null }[];
    };
    const zeta = capabilities.providers.find((provider) => provider.id === 'zeta');
    expect(zeta?.capabilities).toContain('video');
    expect(zeta?.video?.models.find((model) => model.id === 'seedance-2')?.limits).toMatchObject({
      durations: { min: 4, max: 15 },
      aspectRatios: ['16:9', '9:16', '1:1'],
    });
  }, 90_000);

  it('svc video frame and svc video analyze work on the saved video; provider api is refused', async () => {
    const made = JSON.parse((await svc('video', 'a red kite', '--duration', '1', '--json')).stdout) as { video: { filename: string } };
    const png = join(home, 'f.png');
    const frame = await svc('video', 'frame', made.video.filename, '--at', 'last', '-o', png);
    expect(frame.code, frame.stderr).toBe(0);
    expect(existsSync(png)).toBe(true);
    const analyzed = await svc('video', 'analyze', made.video.filename, '--json');
    expect(analyzed.code, analyzed.stderr).toBe(0);
    expect(JSON.parse(analyzed.stdout)).toMatchObject({ filename: made.video.filename, first: { description: expect.any(String) } });
    const refused = await svc('video', 'x', '--provider', 'api', '--json');
    expect(refused.code).not.toBe(0);
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: { code: 'VIDEO_PROVIDER_UNSUPPORTED' } });
  }, 60_000);
});
