import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFrame } from '../../src/studio/media/video/frames.js';
import { probeVideo } from '../../src/studio/media/video/probe.js';
import { runTool, secondsArg } from '../../src/studio/media/video/run-tool.js';
import { framePosition } from '../../src/studio/video/frames.js';

// Issue 45 item 9: GET /api/video/frame?at=1e-320 answered 500, as ffmpeg was
// given "-ss 1e-320" (String() of a tiny number is in exponent notation, which
// ffmpeg refuses). Every time given to a child process is plain decimal.

describe('secondsArg', () => {
  it('writes plain decimal to the microsecond, never exponent notation', () => {
    expect(secondsArg(1e-320)).toBe('0');
    expect(secondsArg(1e-7)).toBe('0');
    expect(secondsArg(1.5e-6)).toBe('0.000002');
    expect(secondsArg(0.5)).toBe('0.5');
    expect(secondsArg(100)).toBe('100');
    expect(secondsArg(-0.05)).toBe('-0.05');
    expect(secondsArg(-1e-9)).toBe('0');
    expect(secondsArg(123456789.25)).toBe('123456789.25');
    expect(() => secondsArg(1e21)).toThrow(RangeError);
    expect(() => secondsArg(Number.NaN)).toThrow(RangeError);
  });
});

describe('extractFrame at a tiny time', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-frame-args-'));
    file = join(dir, 'clip.mp4');
    await runTool(
      'ffmpeg',
      ['-f', 'lavfi', '-i', 'color=c=blue:s=64x64:r=24:d=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-f', 'mp4', file],
      { what: 'test clip' },
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('decodes the frame at 1e-320 s (the first) instead of failing ffmpeg', async () => {
    const { durationSeconds } = await probeVideo(file);
    for (const at of [1e-320, 5e-324, 1e-7]) {
      const png = await extractFrame(file, dir, at, durationSeconds);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    }
  });

  it('takes a frame time only in plain decimal seconds: exponent notation is a 400, not a 500', () => {
    expect(framePosition('first')).toBe('first');
    expect(framePosition(undefined)).toBe('first');
    expect(framePosition('2.5')).toBe(2.5);
    expect(framePosition('0.000001')).toBe(0.000001);
    for (const at of ['1e-320', '5e-324', '0x10', 'Infinity', '-1', '', ' 1', '1.']) {
      expect(() => framePosition(at)).toThrow(expect.objectContaining({ code: 'VIDEO_FRAME_OUT_OF_RANGE' }));
    }
  });
});
