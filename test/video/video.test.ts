import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectEvents } from '../../src/common/events/client.js';
import { startAlphaSimulator, type AlphaSimulator } from '../../src/sim/alpha/index.js';
import { videoResult, type VideoResult } from '../../src/studio/api/index.js';
import { readVideoMetadata } from '../../src/studio/media/video/index.js';
import { startAlphaRig, type AlphaRig } from '../lanes/alpha-rig.js';
import { expectError, imageDataUrl, waitFor } from '../lanes/gamma-delta-epsilon-rig.js';

// Video over real HTTP against the alpha simulator (real MP4s, real ffmpeg):
// the job, its events, the refusals, frames, storyboards, edit and extend.

let sim: AlphaSimulator;
let rig: AlphaRig;
const scratch = mkdtempSync(join(tmpdir(), 'svc-video-test-'));

beforeAll(async () => {
  sim = await startAlphaSimulator({ videoMs: 300 });
  rig = await startAlphaRig(sim, { env: { SVC_VIDEO_POLL_MS: '100', SVC_VIDEO_STALL_MS: '200' } });
});

afterAll(async () => {
  await rig?.stop();
  await sim?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const generate = async (body: Record<string, unknown>): Promise<VideoResult> => {
  const response = await rig.post('/api/video/generate', body);
  const json = await response.json();
  expect(response.status, JSON.stringify(json)).toBe(200);
  return videoResult.parse(json);
};

/** ffprobe of a file of history. */
async function probeAsset(url: string): Promise<{ codec: string; duration: number; width: number; height: number }> {
  const file = join(scratch, `${Math.random().toString(16).slice(2)}.mp4`);
  writeFileSync(file, Buffer.from(await (await rig.get(url)).arrayBuffer()));
  const json = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], { encoding: 'utf8' }),
  ) as {
    streams: { codec_type: string; codec_name: string; width: number; height: number }[];
    format: { duration: string };
  };
  const video = json.streams.find((stream) => stream.codec_type === 'video');
  return { codec: video?.codec_name ?? '', duration: Number(json.format.duration), width: video?.width ?? 0, height: video?.height ?? 0 };
}

describe('POST /api/video/generate', () => {
  it('makes an H.264 MP4 of the requested duration, saved to history with its facts, poster and metadata', async () => {
    const result = await generate({ provider: 'alpha-api', prompt: 'waves at dusk', duration: 2, resolution: '480p', aspectRatio: '16:9' });
    expect(result).toMatchObject({ provider: 'alpha-api', operation: 'generate', mode: 'text-to-video', model: 'alpha-video-1.5' });
    expect(result.video).toMatchObject({
      format: 'mp4',
      kind: 'video',
      width: 854,
      height: 480,
      video: { resolution: '480p', aspectRatio: '16:9', codec: 'h264' },
    });
    const probed = await probeAsset(result.video.url);
    expect(probed.codec).toBe('h264');
    expect(Math.abs(probed.duration - 2)).toBeLessThan(0.2);
    // The poster thumbnail is there at once.
    const poster = await rig.get(result.video.thumbnailUrl);
    expect(poster.status).toBe(200);
    expect(poster.headers.get('content-type')).toBe('image/webp');
    // The metadata embedded in the MP4 reads back.
    const file = join(scratch, 'meta.mp4');
    writeFileSync(file, Buffer.from(await (await rig.get(result.video.url)).arrayBuffer()));
    expect(await readVideoMetadata(file)).toMatchObject({
      prompt: 'waves at dusk',
      lane: 'alpha-api',
      model: 'alpha-video-1.5',
      requestId: result.requestId,
      kind: 'video',
    });
    // The 1.5 model got a canvas to start from (prompt-only text-to-video).
    const create = sim.simulator.lastRequest({ route: 'POST /v1/videos/generations' });
    expect((create?.body as { image?: unknown }).image).toBeDefined();
  });

  it('publishes planning, submitted, progress…, done in that order on /api/events (async 202)', async () => {
    const events: { event: string; fraction?: number; stalled?: boolean; upstreamId?: string; requestedModel?: string; model?: string }[] =
      [];
    let opened!: () => void;
    const open = new Promise<void>((resolve) => (opened = resolve));
    const connection = connectEvents(`${rig.studio.url}/api/events`, {
      onStatus: (status) => status === 'open' && opened(),
      onEvent: (event) => {
        if (event.requestId === 'video-async') events.push(event as unknown as (typeof events)[number]);
      },
    });
    await open;
    const accepted = await rig.post('/api/video/generate', {
      provider: 'alpha-api',
      prompt: 'a lighthouse [sim:video-stall=600]',
      duration: 1,
      async: true,
      requestId: 'video-async',
      model: 'alpha-video-1.5-preview',
    });
    expect(accepted.status).toBe(202);
    await waitFor('the done event', () => events.some((event) => event.event === 'done' || event.event === 'error'));
    connection.close();
    const names = events.map((event) => event.event).filter((name) => name !== 'phase');
    expect(names[0]).toBe('planning');
    expect(names[1]).toBe('submitted');
    expect(names.at(-1)).toBe('done');
    expect(names.slice(2, -1).length).toBeGreaterThan(0);
    expect(new Set(names.slice(2, -1))).toEqual(new Set(['progress']));
    const submitted = events.find((event) => event.event === 'submitted');
    expect(submitted).toMatchObject({
      upstreamId: expect.any(String),
      requestedModel: 'alpha-video-1.5-preview',
      model: 'alpha-video-1.5',
    });
    const progress = events.filter((event) => event.event === 'progress');
    expect(progress.at(-1)?.fraction).toBe(1);
    // The stall trigger held progress still long enough to be reported.
    expect(progress.some((event) => event.stalled === true)).toBe(true);
    const fractions = progress.map((event) => event.fraction ?? 0);
    expect([...fractions].sort((a, b) => a - b)).toEqual(fractions);
  });

  it('refuses other providers, cligen, duration 16, 1080p reference-to-video and bad values with codes naming the rule', async () => {
    await expectError(await rig.post('/api/video/generate', { provider: 'api', prompt: 'x' }), 400, 'VIDEO_PROVIDER_UNSUPPORTED');
    await expectError(await rig.post('/api/video/generate', { provider: 'cligen', prompt: 'x' }), 400, 'CLIGEN_VIDEO_UNSUPPORTED');
    const long = await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', duration: 16 }),
      400,
      'VIDEO_DURATION_OUT_OF_RANGE',
    );
    expect(long.error.details).toMatchObject({ min: 1, max: 15, got: 16 });
    const image = await imageDataUrl('png');
    const refs = [image, image];
    const fullHd = await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', references: refs, resolution: '1080p' }),
      400,
      'VIDEO_RESOLUTION_UNSUPPORTED',
    );
    expect(fullHd.error.details).toMatchObject({ valid: ['480p', '720p'], mode: 'reference-to-video' });
    const base = await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', model: 'alpha-video', prompt: 'x', references: refs, duration: 11 }),
      400,
      'VIDEO_DURATION_OUT_OF_RANGE',
    );
    expect(base.error.details).toMatchObject({ max: 10, mode: 'reference-to-video' });
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', resolution: '4k' }),
      400,
      'VIDEO_RESOLUTION_UNSUPPORTED',
    );
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', aspectRatio: '21:9' }),
      400,
      'VIDEO_ASPECT_RATIO_UNSUPPORTED',
    );
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', model: 'alpha-image' }),
      400,
      'INVALID_VIDEO_MODEL',
    );
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', references: Array.from({ length: 15 }, () => image) }),
      400,
      'VIDEO_REFERENCES_TOO_MANY',
    );
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x', storyboard: { clips: [{ prompt: 'one' }] } }),
      400,
      'STORYBOARD_INVALID',
    );
  });

  it('ends failed, expired and moderated upstream jobs with their codes', async () => {
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x [sim:video-fail]', duration: 1 }),
      502,
      'VIDEO_GENERATION_FAILED',
    );
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x [sim:video-expire]', duration: 1 }),
      502,
      'VIDEO_EXPIRED',
    );
    await expectError(
      await rig.post('/api/video/generate', { provider: 'alpha-api', prompt: 'x [sim:video-moderated]', duration: 1 }),
      422,
      'MODERATION_REFUSED',
    );
  });

  it('a download lost to a vendor hiccup is fetched again at the next poll, not the end of a finished video', async () => {
    const downloads = () => sim.simulator.requests({ route: 'GET /media/:name' }).length;
    const before = downloads();
    sim.simulator.fault('GET /media/:name', { status: 503 });
    const result = await generate({ provider: 'alpha-api', prompt: 'fetched on the second try', duration: 1 });
    expect(result.video).toMatchObject({ format: 'mp4', kind: 'video' });
    expect(downloads() - before).toBe(2);
  });

  it('a cancel stops the polls: the job ends cancelled and the upstream is asked no more', async () => {
    const accepted = await rig.post('/api/video/generate', {
      provider: 'alpha-api',
      prompt: 'a long one [sim:video-slow=20000]',
      duration: 1,
      async: true,
      requestId: 'video-cancel',
    });
    expect(accepted.status).toBe(202);
    const upstream = await waitFor(
      'the upstream id',
      async () =>
        ((await (await rig.get('/api/jobs/video-cancel')).json()) as { upstream: { operationId: string } | null }).upstream ?? undefined,
    );
    await waitFor('a poll', () =>
      sim.simulator.requests({ route: 'GET /v1/videos/:id' }).some((entry) => entry.path.endsWith(upstream.operationId)),
    );
    expect((await rig.studio.request('/api/inflight/video-cancel', { method: 'DELETE' })).status).toBe(200);
    const record = (await (await rig.get('/api/jobs/video-cancel')).json()) as { state: string; error: { code: string } };
    expect(record).toMatchObject({ state: 'cancelled', error: { code: 'JOB_CANCELLED' } });
    const polls = sim.simulator
      .requests({ route: 'GET /v1/videos/:id' })
      .filter((entry) => entry.path.endsWith(upstream.operationId)).length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(
      sim.simulator.requests({ route: 'GET /v1/videos/:id' }).filter((entry) => entry.path.endsWith(upstream.operationId)),
    ).toHaveLength(polls);
  });

  it('reference-to-video runs on the base model; image-to-video from one image', async () => {
    const image = await imageDataUrl('png', 160, 90);
    const references = await generate({ provider: 'alpha-api', prompt: 'two cats', references: [image, image], duration: 1 });
    expect(references).toMatchObject({ mode: 'reference-to-video', model: 'alpha-video', requestedModel: 'alpha-video-1.5' });
    const single = await generate({ provider: 'alpha-api', prompt: 'a cat walks', references: [image], duration: 1, resolution: '1080p' });
    expect(single).toMatchObject({ mode: 'image-to-video', model: 'alpha-video-1.5' });
    expect(single.video.video).toMatchObject({ resolution: '1080p', aspectRatio: '16:9' });
    // Without aspectRatio, image-to-video keeps the image's ratio.
    const portrait = await generate({
      provider: 'alpha-api',
      prompt: 'a tall tower',
      references: [await imageDataUrl('png', 90, 160)],
      duration: 1,
    });
    expect(portrait.video.video?.aspectRatio).toBe('9:16');
  });
});

describe('storyboard, frame, edit, extend, analyze', () => {
  let first: VideoResult;

  it('a storyboard of three clips saves three clips and one joined video whose duration is their sum', async () => {
    first = await generate({
      provider: 'alpha-api',
      prompt: 'a paper boat',
      storyboard: {
        clips: [
          { prompt: 'it is folded', duration: 1 },
          { prompt: 'it floats', duration: 2 },
          { prompt: 'it sinks', duration: 1 },
        ],
      },
    });
    expect(first.clips).toHaveLength(3);
    const durations = (first.clips ?? []).map((clip) => clip.video?.durationSeconds ?? 0);
    const sum = durations.reduce((total, seconds) => total + seconds, 0);
    expect(Math.abs(sum - 4)).toBeLessThan(0.3);
    expect(Math.abs((first.video.video?.durationSeconds ?? 0) - sum)).toBeLessThan(0.2);
    expect(Math.abs((await probeAsset(first.video.url)).duration - sum)).toBeLessThan(0.2);
    // Clips after the first start from the last frame of the one before (image-to-video).
    const creates = sim.simulator.requests({ route: 'POST /v1/videos/generations' }).slice(-3);
    expect(creates.slice(1).every((entry) => (entry.body as { image?: { url: string } }).image?.url.startsWith('data:image/png'))).toBe(
      true,
    );
    const history = (await (await rig.get('/api/history?kind=video&limit=200')).json()) as { items: { filename: string }[] };
    for (const clip of [...(first.clips ?? []), first.video]) expect(history.items.map((item) => item.filename)).toContain(clip.filename);
  });

  it('GET /api/video/frame answers a PNG (first, last, at a time) and refuses a time past the end', async () => {
    const clip = first.clips?.[1]?.filename as string;
    for (const at of ['first', 'last', '0.5']) {
      const response = await rig.get(`/api/video/frame?filename=${clip}&at=${at}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(
        Buffer.from(await response.arrayBuffer())
          .subarray(1, 4)
          .toString('latin1'),
      ).toBe('PNG');
    }
    // A time inside the last frame's span (here the very end) is that last frame, not an undecodable video.
    const end = await rig.get(`/api/video/frame?filename=${clip}&at=${first.clips?.[1]?.video?.durationSeconds}`);
    expect(end.status).toBe(200);
    const last = await rig.get(`/api/video/frame?filename=${clip}&at=last`);
    expect(Buffer.from(await end.arrayBuffer()).equals(Buffer.from(await last.arrayBuffer()))).toBe(true);
    await expectError(await rig.get(`/api/video/frame?filename=${clip}&at=99`), 400, 'VIDEO_FRAME_OUT_OF_RANGE');
    await expectError(await rig.get('/api/video/frame?filename=nothing-here.mp4'), 404, 'VIDEO_SOURCE_NOT_FOUND');
  });

  it('edit saves a new MP4 derived from the source; extend saves the source joined with the new part', async () => {
    const source = first.clips?.[0];
    const edited = videoResult.parse(
      await (await rig.post('/api/video/edit', { provider: 'alpha-api', prompt: 'make it night', video: source?.filename })).json(),
    );
    expect(edited).toMatchObject({ operation: 'edit', mode: 'video-to-video', model: 'alpha-video' });
    expect(edited.video.derivedFrom).toBe(source?.filename);
    const extended = videoResult.parse(
      await (
        await rig.post('/api/video/extend', { provider: 'alpha-api', prompt: 'it sails on', video: source?.filename, duration: 2 })
      ).json(),
    );
    expect(extended).toMatchObject({ operation: 'extend', mode: 'extension', model: 'alpha-video' });
    expect(Math.abs((extended.video.video?.durationSeconds ?? 0) - ((source?.video?.durationSeconds ?? 0) + 2))).toBeLessThan(0.2);
    await expectError(
      await rig.post('/api/video/extend', { provider: 'alpha-api', prompt: 'x', url: 'http://example.com/a.mp4' }),
      400,
      'VIDEO_URL_REFUSED',
    );
    await expectError(
      await rig.post('/api/video/extend', { provider: 'alpha-api', prompt: 'x', url: 'https://127.0.0.1/a.mp4' }),
      400,
      'VIDEO_URL_REFUSED',
    );
  });

  it('analyze describes the first and last frames; a remote URL is refused', async () => {
    const response = await rig.post('/api/video/analyze', { provider: 'alpha-api', video: first.video.filename });
    const body = (await response.json()) as { first: { description: string }; last: { description: string; atSeconds: number } };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.first.description.length).toBeGreaterThan(0);
    expect(body.last.atSeconds).toBeGreaterThan(0);
    await expectError(await rig.post('/api/video/analyze', { url: 'https://example.com/a.mp4' }), 400, 'VIDEO_REMOTE_UNSUPPORTED');
  });

  it('videos are tombstoned and restored like images', async () => {
    const name = first.video.filename;
    expect((await rig.studio.request(`/api/history/${name}`, { method: 'DELETE' })).status).toBeLessThan(300);
    expect((await rig.get(first.video.url)).status).toBe(404);
    expect((await rig.studio.request(`/api/history/${name}/restore`, { method: 'POST' })).status).toBeLessThan(300);
    expect((await rig.get(first.video.url)).status).toBe(200);
  });
});

describe('the simulator', () => {
  it('the video-ratelimit trigger answers 429 with Retry-After', async () => {
    const response = await fetch(`${sim.apiBaseUrl}/videos/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sim.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'alpha-video', prompt: 'x [sim:video-ratelimit=2]', duration: 1 }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('2');
  });
});

describe('the saved video target', () => {
  it('is used when a request names no provider or model', async () => {
    const saved = await rig.studio.request('/api/defaults', {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ video: 'alpha-api/alpha-video' }),
    });
    expect(saved.status).toBe(200);
    const result = await generate({ prompt: 'a windmill', duration: 1 });
    expect(result).toMatchObject({ provider: 'alpha-api', model: 'alpha-video', mode: 'text-to-video' });
  });
});
