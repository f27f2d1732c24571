import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { ImageStructureError, readImageHeader } from './image-header.js';

const base = () => sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 0.5 } } });

describe('readImageHeader', () => {
  it('reads the pixel size of PNG, JPEG and the three WebP kinds, as sharp does', async () => {
    const images = {
      png: await base().png().toBuffer(),
      jpeg: await base().jpeg().toBuffer(),
      lossy: await base().flatten().webp({ lossless: false }).toBuffer(),
      lossless: await base().webp({ lossless: true }).toBuffer(),
      extended: await base().webp({ lossless: false }).toBuffer(),
    };
    for (const [name, bytes] of Object.entries(images)) {
      const format = name === 'png' ? 'png' : name === 'jpeg' ? 'jpeg' : 'webp';
      expect(readImageHeader(bytes, format), name).toEqual({ width: 300, height: 200, displayed: { width: 300, height: 200 } });
    }
  });

  it('swaps the displayed sides of a JPEG whose EXIF orientation turns it', async () => {
    const turned = await base().jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const meta = await sharp(turned).metadata();
    expect(readImageHeader(turned, 'jpeg')).toEqual({
      width: 300,
      height: 200,
      displayed: { width: meta.autoOrient.width, height: meta.autoOrient.height },
    });
    expect(readImageHeader(turned, 'jpeg').displayed).toEqual({ width: 200, height: 300 });
  });

  it('refuses files cut short or malformed', async () => {
    const png = await base().png().toBuffer();
    const jpeg = await base().jpeg().toBuffer();
    const webp = await base().webp().toBuffer();
    for (const [bytes, format] of [
      [png.subarray(0, png.length - 20), 'png'],
      [png.subarray(0, 30), 'png'],
      [jpeg.subarray(0, jpeg.length - 100), 'jpeg'],
      [webp.subarray(0, webp.length - 10), 'webp'],
      [Buffer.concat([webp, Buffer.alloc(20)]), 'webp'],
    ] as const) {
      expect(() => readImageHeader(bytes, format)).toThrow(ImageStructureError);
    }
  });
});
