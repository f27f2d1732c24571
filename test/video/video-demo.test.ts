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
// /api/events arrive as planning, submitted, progress…, done.

const home = makeTempHome('svc-video-demo-');
let demo: RunningSvc;
let url: string;

beforeAll(async () => {
  demo = await startSvc(['serve', '--demo', '--port', '0', '--json'], { SVC_HOME: home, SVC_VIDEO_POLL_MS: '300' });
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
    const probed = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', out], { encoding: 'utf8' })) as { streams: { codec_name: string }[]; format: { duration: string } };
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
    const accepted = await fetch(`${url}/api/video/generate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'waves at dusk', duration: 2, async: true, requestId: 'demo-async' }) });
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
