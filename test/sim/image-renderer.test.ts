import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { imageDimensionsFromSize, renderImage } from '../../src/sim/image-renderer.js';

/** Share of pixels whose hue reads as the named color. */
async function shareOf(image: Buffer, test: (r: number, g: number, b: number) => boolean): Promise<number> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let hits = 0;
  const pixels = info.width * info.height;
  for (let index = 0; index < data.length; index += info.channels) if (test(data[index], data[index + 1], data[index + 2])) hits += 1;
  return hits / pixels;
}

const reddish = (r: number, g: number, b: number) => r > g + 50 && r > b + 50;
const bluish = (r: number, g: number, b: number) => b > r + 50 && b > g + 30;

describe('renderImage', () => {
  it.each([
    ['png', 1024, 1024],
    ['jpeg', 1536, 1024],
    ['webp', 512, 768],
    ['png', 3840, 2160],
  ] as const)('renders a real %s of %dx%d', async (format, width, height) => {
    const image = await renderImage({ prompt: 'a lighthouse at dusk', width, height, format });
    const meta = await sharp(image).metadata();
    expect(meta.format).toBe(format);
    expect(meta.width).toBe(width);
    expect(meta.height).toBe(height);
  });

  it('makes a red prompt mostly red and a blue prompt mostly blue', async () => {
    const fox = await renderImage({ prompt: 'a red fox', width: 256, height: 256, format: 'png' });
    expect(await shareOf(fox, reddish)).toBeGreaterThan(0.6);
    const whale = await renderImage({ prompt: 'a blue whale', width: 256, height: 256, format: 'jpeg' });
    expect(await shareOf(whale, bluish)).toBeGreaterThan(0.6);
    expect(await shareOf(whale, reddish)).toBeLessThan(0.1);
  });

  it('is deterministic and varies with the seed', async () => {
    const options = { prompt: 'same prompt', width: 128, height: 128, format: 'png' as const };
    const first = await renderImage(options);
    const again = await renderImage({ ...options });
    expect(first.equals(again)).toBe(true);
    const seeded = await renderImage({ ...options, seed: 7 });
    expect(seeded.equals(first)).toBe(false);
  });

  it('marks the image as simulated with the striped band in the top left corner', async () => {
    const image = await renderImage({ prompt: 'a green field', width: 400, height: 400, format: 'png' });
    // Sample along the band's diagonal: hazard stripes give yellow and near-black pixels there.
    const { data, info } = await sharp(image).raw().toBuffer({ resolveWithObject: true });
    let yellow = 0;
    let dark = 0;
    for (let step = 0; step < 40; step += 1) {
      const x = 36 + step;
      const y = 76 - step; // x + y = 112 lies inside the band (between 20% and 36% of 400)
      const offset = (y * info.width + x) * info.channels;
      const [r, g, b] = [data[offset], data[offset + 1], data[offset + 2]];
      if (r > 200 && g > 160 && b < 80) yellow += 1;
      if (r < 60 && g < 60 && b < 60) dark += 1;
    }
    expect(yellow).toBeGreaterThan(5);
    expect(dark).toBeGreaterThan(5);
  });

  it('renders partial drafts that are blurrier than the final image', async () => {
    const base = { prompt: 'a red kite over a green hill', width: 512, height: 512, format: 'png' as const };
    const final = await renderImage(base);
    const draft = await renderImage({ ...base, quality: 'partial', partialIndex: 0 });
    const meta = await sharp(draft).metadata();
    expect([meta.width, meta.height]).toEqual([512, 512]);
    // Edge energy (mean neighbour difference): the draft has far less of it.
    const sharpness = async (image: Buffer) => {
      const { data, info } = await sharp(image).greyscale().raw().toBuffer({ resolveWithObject: true });
      let energy = 0;
      for (let y = 1; y < info.height; y += 1) {
        for (let x = 1; x < info.width; x += 1) {
          const index = y * info.width + x;
          energy += Math.abs(data[index] - data[index - 1]) + Math.abs(data[index] - data[index - info.width]);
        }
      }
      return energy / (info.width * info.height);
    };
    expect(await sharpness(draft)).toBeLessThan((await sharpness(final)) * 0.8);
  });

  it('keeps a transparent background for png', async () => {
    const image = await renderImage({ prompt: 'a sticker', width: 128, height: 128, format: 'png', background: 'transparent' });
    const meta = await sharp(image).metadata();
    expect(meta.hasAlpha).toBe(true);
    const { data } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    // The middle of the left edge is background: fully transparent.
    expect(data[(64 * 128 + 0) * 4 + 3]).toBe(0);
  });

  it('paints over an input image for edits', async () => {
    const base = await sharp({ create: { width: 300, height: 200, channels: 3, background: { r: 0, g: 0, b: 255 } } })
      .png()
      .toBuffer();
    const edited = await renderImage({ prompt: 'add a hat', width: 256, height: 256, format: 'png', baseImage: base });
    const meta = await sharp(edited).metadata();
    expect([meta.width, meta.height]).toEqual([256, 256]);
    expect(await shareOf(edited, bluish)).toBeGreaterThan(0.3);
  });

  it('rejects impossible sizes', async () => {
    await expect(renderImage({ prompt: 'x', width: 0, height: 10, format: 'png' })).rejects.toThrow(RangeError);
  });
});

describe('imageDimensionsFromSize', () => {
  it('reads WxH and auto', () => {
    expect(imageDimensionsFromSize('1536x1024')).toEqual({ width: 1536, height: 1024 });
    expect(imageDimensionsFromSize('auto')).toEqual({ width: 1024, height: 1024 });
    expect(imageDimensionsFromSize('big')).toBeUndefined();
    expect(imageDimensionsFromSize('0x10')).toBeUndefined();
  });
});
