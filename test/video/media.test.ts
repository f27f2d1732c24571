import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { renderSimVideo } from '../../src/sim/alpha/video-render.js';
import { locateTool, probeVideo, runTool } from '../../src/studio/media/video/index.js';
import { saveVideoAsset } from '../../src/studio/video/save-video.js';
import { makeTempHome } from '../helpers/studio.js';
import { getJson, startAssetStudio } from '../assets/helpers.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// The video media layer: where ffmpeg comes from (PATH, else the npm
// packages' binaries, so `npm ci` alone is enough), its limits, and the saved
// video's metadata read back by the server after a crash lost its row.

const scratch = mkdtempSync(join(tmpdir(), 'svc-video-media-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('ffmpeg and ffprobe', () => {
  it('come from PATH when there, else from the npm packages, and both work', async () => {
    expect(locateTool('ffprobe', { PATH: process.env.PATH })?.source).toBe('path');
    const empty = mkdtempSync(join(scratch, 'empty-path-'));
    const shipped = locateTool('ffprobe', { PATH: empty });
    expect(shipped?.source).toBe('npm');
    expect(locateTool('ffmpeg', { PATH: empty })?.source).toBe('npm');
    const clip = join(scratch, 'clip.mp4');
    writeFileSync(clip, await renderSimVideo({ prompt: 'a fallback check', width: 320, height: 180, durationSeconds: 1 }));
    const facts = await probeVideo(clip, { env: { PATH: empty } });
    expect(facts).toMatchObject({ codec: 'h264', width: 320, height: 180 });
  });

  it('a studio whose PATH has no ffmpeg saves a video with the npm binaries', async () => {
    const empty = mkdtempSync(join(scratch, 'no-ffmpeg-'));
    const studio = await startAssetStudio({ PATH: empty });
    try {
      const bytes = await renderSimVideo({ prompt: 'saved without Debian ffmpeg', width: 320, height: 180, durationSeconds: 1 });
      const saved = await saveVideoAsset(studio.ctx, {
        bytes,
        metadata: {
          prompt: 'saved without Debian ffmpeg',
          lane: 'alpha',
          model: 'alpha-video',
          requestId: 'npm-ffmpeg',
          kind: 'video',
          settings: {},
        },
      });
      expect(saved).toMatchObject({ format: 'mp4', thumbnailReady: true, video: { codec: 'h264', durationSeconds: 1 } });
    } finally {
      await studio.stop();
    }
  });

  it('is stopped at its time limit, and missing binaries answer FFMPEG_UNAVAILABLE', async () => {
    await expect(
      runTool('ffmpeg', ['-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=5', '-f', 'null', '-'], { what: 'endless', timeoutMs: 300 }),
    ).rejects.toMatchObject({ code: 'FFMPEG_TIMEOUT' });
    await expect(
      runTool('ffprobe', ['-version'], { what: 'none', env: { PATH: scratch, SVC_FFPROBE: '/nonexistent/ffprobe' } }),
    ).rejects.toMatchObject({ code: 'FFMPEG_UNAVAILABLE' });
  });
});

describe('probe', () => {
  it('a video whose tags overflow what ffprobe may print is VIDEO_SOURCE_INVALID, not an internal error', async () => {
    const clip = join(scratch, 'plain.mp4');
    writeFileSync(clip, await renderSimVideo({ prompt: 'a tagged clip', width: 320, height: 180, durationSeconds: 1 }));
    const tags = join(scratch, 'tags.txt');
    writeFileSync(tags, `;FFMETADATA1\ncomment=${'a'.repeat(1_200_000)}\n`);
    const tagged = join(scratch, 'tagged.mp4');
    await runTool('ffmpeg', ['-i', clip, '-i', tags, '-map', '0', '-map_metadata', '1', '-c', 'copy', tagged], { what: 'tags' });
    await expect(probeVideo(tagged)).rejects.toMatchObject({ code: 'VIDEO_SOURCE_INVALID' });
  });
});

describe('a saved video after a crash', () => {
  it('a video whose row a crash lost comes back from the metadata embedded in the MP4', async () => {
    const home = makeTempHome();
    const first = await startAssetStudio({ SVC_HOME: home });
    const bytes = await renderSimVideo({ prompt: 'an orphaned film', width: 320, height: 180, durationSeconds: 1 });
    const saved = await saveVideoAsset(first.ctx, {
      bytes,
      metadata: {
        prompt: 'an orphaned film',
        lane: 'alpha-api',
        model: 'alpha-video-1.5',
        requestId: 'orphan-video',
        kind: 'video',
        settings: { operation: 'generate' },
      },
    });
    embeddedDatabase(first.ctx).prepare('DELETE FROM assets WHERE filename = ?').run(saved.filename);
    await first.close();
    const second = await startAssetStudio({ SVC_HOME: home });
    try {
      await vi.waitFor(
        async () => expect((await getJson<{ items: unknown[] }>(second, '/api/history?kind=video')).body.items).toHaveLength(1),
        { timeout: 10_000, interval: 50 },
      );
      const { body } = await getJson<{
        items: { filename: string; requestId: string; format: string; video?: { durationSeconds: number } }[];
      }>(second, '/api/history?kind=video');
      expect(body.items[0]).toMatchObject({
        filename: saved.filename,
        requestId: 'orphan-video',
        format: 'mp4',
        video: { durationSeconds: 1 },
      });
      expect((await fetch(`${second.url}${saved.thumbnailUrl}`)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('bytes that are not an MP4 are refused and nothing is written', async () => {
    const studio = await startAssetStudio();
    try {
      await expect(
        saveVideoAsset(studio.ctx, {
          bytes: Buffer.from('<html>not a video</html>'),
          metadata: { prompt: 'x', lane: 'alpha', model: 'alpha-video', requestId: 'bad', kind: 'video', settings: {} },
        }),
      ).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
      expect((await getJson<{ items: unknown[] }>(studio, '/api/history')).body.items).toHaveLength(0);
    } finally {
      await studio.stop();
    }
  });
});
