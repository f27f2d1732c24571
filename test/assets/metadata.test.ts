import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEmbeddedMetadata, saveAsset, type AssetRecord } from '../../src/studio/assets.js';
import { embedMetadata } from '../../src/studio/media/metadata.js';
import { getJson, listDir, makeImage, metadata, startAssetStudio, type TestStudio } from './helpers.js';

const rawPixels = (image: Buffer) => sharp(image).raw().toBuffer();

describe('embedded metadata', () => {
  let studio: TestStudio;

  beforeAll(async () => {
    studio = await startAssetStudio();
  });
  afterAll(() => studio.stop());

  const variants = [
    { label: 'png', format: 'png', options: {} },
    { label: 'png with alpha', format: 'png', options: { alpha: true } },
    { label: 'jpeg', format: 'jpeg', options: {} },
    { label: 'webp lossy (simple VP8)', format: 'webp', options: {} },
    { label: 'webp lossless (simple VP8L) with alpha', format: 'webp', options: { lossless: true, alpha: true } },
    { label: 'webp lossy with alpha (extended VP8X)', format: 'webp', options: { alpha: true } },
  ] as const;

  for (const variant of variants) {
    it(`round-trips through the saved file: ${variant.label}`, async () => {
      const original = await makeImage(variant.format, { width: 300, height: 180, ...variant.options });
      const meta = metadata({
        prompt: `a "quoted" <tagged> & ünïcode prompt 🦊 for ${variant.label}`,
        revisedPrompt: 'the planner rewrote it',
        sessionTitle: 'Foxes',
        kind: 'edit',
        settings: { quality: 'high', nested: { list: [1, 2, 3] } },
      });
      const record = await saveAsset(studio.ctx, { bytes: original, metadata: meta });
      expect(record).toMatchObject({
        format: variant.format,
        width: 300,
        height: 180,
        kind: 'edit',
        sessionTitle: 'Foxes',
        revisedPrompt: 'the planner rewrote it',
      });

      const download = Buffer.from(await (await studio.request(record.url)).arrayBuffer());
      const expected = { ...meta, createdAt: record.createdAt };
      expect(await readEmbeddedMetadata(download)).toEqual(expected);
      expect(await readEmbeddedMetadata(join(studio.ctx.paths.generatedDir, record.filename))).toEqual(expected);

      // The image was not re-encoded: the same pixels decode out of it.
      expect((await rawPixels(download)).equals(await rawPixels(original))).toBe(true);
      const info = await sharp(download).metadata();
      expect({ width: info.width, height: info.height, hasAlpha: info.hasAlpha }).toEqual({
        width: 300,
        height: 180,
        hasAlpha: Boolean('alpha' in variant.options && variant.options.alpha),
      });
      // Other readers find it where they look: PNG text chunks, XMP.
      if (variant.format === 'png') expect(info.comments?.map((comment) => comment.keyword)).toContain('svc:metadata');
      else expect(info.xmp?.toString('utf8')).toContain('<svc:metadata>');

      const single = await getJson<AssetRecord & { embeddedMetadata: unknown }>(studio, `/api/history/${record.filename}`);
      expect(single.status).toBe(200);
      expect(single.body.embeddedMetadata).toEqual(expected);
      expect(single.body.filename).toBe(record.filename);
    });
  }

  it('keeps a prompt too large for one JPEG segment (extended XMP)', async () => {
    const meta = metadata({ prompt: 'ü🦊'.repeat(12_000) });
    const record = await saveAsset(studio.ctx, { bytes: await makeImage('jpeg'), metadata: meta });
    const file = readFileSync(join(studio.ctx.paths.generatedDir, record.filename));
    expect(file.length).toBeGreaterThan(70_000);
    expect((await readEmbeddedMetadata(file))?.prompt).toBe(meta.prompt);
    expect((await sharp(file).stats()).channels).toHaveLength(3);
  });

  it('replaces earlier metadata instead of stacking it', async () => {
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const image = await makeImage(format);
      const once = embedMetadata(image, format, metadata({ prompt: 'first' }), { width: 320, height: 200 });
      const twice = embedMetadata(once, format, metadata({ prompt: 'second' }), { width: 320, height: 200 });
      expect((await readEmbeddedMetadata(twice))?.prompt).toBe('second');
      expect(twice.toString('latin1').split('svc:metadata').length).toBe(once.toString('latin1').split('svc:metadata').length);
    }
  });

  it('answers undefined for images without ours, foreign XMP, damaged files and non-images', async () => {
    expect(await readEmbeddedMetadata(await makeImage('png'))).toBeUndefined();
    const foreignXmp = await sharp(await makeImage('jpeg'))
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"></x:xmpmeta>')
      .jpeg()
      .toBuffer();
    expect(await readEmbeddedMetadata(foreignXmp)).toBeUndefined();
    const saved = embedMetadata(await makeImage('png'), 'png', metadata(), { width: 320, height: 200 });
    expect(await readEmbeddedMetadata(saved.subarray(0, 60))).toBeUndefined();
    expect(await readEmbeddedMetadata(Buffer.from('hello'))).toBeUndefined();
  });

  it('records the displayed size of a JPEG with EXIF orientation', async () => {
    const rotated = await sharp(await makeImage('jpeg', { width: 120, height: 40 }))
      .withMetadata({ orientation: 6 })
      .jpeg()
      .toBuffer();
    const record = await saveAsset(studio.ctx, { bytes: rotated, metadata: metadata() });
    expect({ width: record.width, height: record.height }).toEqual({ width: 40, height: 120 });
    const thumb = await sharp(Buffer.from(await (await studio.request(record.thumbnailUrl)).arrayBuffer())).metadata();
    expect({ width: thumb.width, height: thumb.height }).toEqual({ width: 40, height: 120 });
  });

  it('names files <yyyymmdd-hhmmss>-<slug>-<random>.<ext> from the creation time and prompt', async () => {
    const record = await saveAsset(studio.ctx, {
      bytes: await makeImage('jpeg'),
      metadata: metadata({ prompt: '  Ünïcode Café: "a FOX" / at dawn?! ', createdAt: '2025-07-08T09:10:11.000Z' }),
    });
    expect(record.filename).toMatch(/^20250708-091011-unicode-cafe-a-fox-at-dawn-[0-9a-f]{10}\.jpg$/);
    expect(record.createdAt).toBe('2025-07-08T09:10:11.000Z');
    const emoji = await saveAsset(studio.ctx, { bytes: await makeImage('webp'), metadata: metadata({ prompt: '🦊🦊' }) });
    expect(emoji.filename).toMatch(/^\d{8}-\d{6}-image-[0-9a-f]{10}\.webp$/);
  });

  it('refuses bytes that are not PNG, JPEG or WebP with UPSTREAM_FAILED and writes nothing', async () => {
    // Thumbnails of the earlier saves follow them off the request path: let them land first.
    await studio.ctx.derived.idle();
    const before = [listDir(studio.ctx.paths.generatedDir), listDir(studio.ctx.paths.thumbnailsDir)];
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
      .gif()
      .toBuffer();
    for (const bytes of [gif, Buffer.from('not an image'), Buffer.concat([(await makeImage('png')).subarray(0, 40), Buffer.alloc(100)])]) {
      await expect(saveAsset(studio.ctx, { bytes, metadata: metadata() })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    }
    expect([listDir(studio.ctx.paths.generatedDir), listDir(studio.ctx.paths.thumbnailsDir)]).toEqual(before);
  });
});
