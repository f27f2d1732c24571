import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTool } from '../../src/studio/media/video/run-tool.js';
import { saveVideoAsset } from '../../src/studio/video/save-video.js';
import { makeTempHome, startTestStudio, type TestStudio } from '../helpers/studio.js';

// Issue 45 item 5: the first 40% of a real MP4 (its index first, so it probes
// as whole) was saved as complete. A video is decoded before it is saved, and
// history keeps the facts of the file written.

let studio: TestStudio;
let whole: Buffer;
const dir = makeTempHome('svc-truncated-video-');

beforeAll(async () => {
  studio = await startTestStudio();
  const file = join(dir, 'whole.mp4');
  // Detailed frames (a test pattern), so the media data is most of the file; the index (moov) first.
  await runTool(
    'ffmpeg',
    [
      '-f',
      'lavfi',
      '-i',
      'testsrc2=s=320x240:r=24:d=3',
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      file,
    ],
    { what: 'test clip' },
  );
  whole = readFileSync(file);
}, 60_000);
afterAll(async () => {
  await studio?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const metadata = (requestId: string) => ({
  prompt: 'a test pattern',
  lane: 'alpha' as const,
  model: 'alpha-video',
  requestId,
  kind: 'video' as const,
  settings: {},
});

describe('a downloaded video is decoded before it is saved', () => {
  it('refuses the first 40% of an MP4 (it probes as 3 s, decodes about 1 s) with UPSTREAM_FAILED, saving nothing', async () => {
    const cut = whole.subarray(0, Math.floor(whole.length * 0.4));
    await expect(saveVideoAsset(studio.ctx, { bytes: cut, metadata: metadata('cut-video') })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: expect.stringContaining('cut short'),
    });
    const history = (await (await studio.request('/api/history')).json()) as { items: unknown[] };
    expect(history.items).toHaveLength(0);
  }, 60_000);

  it('saves the whole MP4 with the duration of the file written', async () => {
    const saved = await saveVideoAsset(studio.ctx, { bytes: whole, metadata: metadata('whole-video') });
    expect(saved.video?.durationSeconds).toBeCloseTo(3, 1);
  }, 60_000);
});
