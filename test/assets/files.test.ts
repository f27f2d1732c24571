import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveAsset, type AssetRecord } from '../../src/studio/assets.js';
import { sniffImageType } from '../../src/studio/media/image-type.js';
import { rawRequest } from '../helpers/raw-http.js';
import { getJson, listDir, makeImage, metadata, startAssetStudio, type TestStudio } from './helpers.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

describe('file serving', () => {
  let studio: TestStudio;
  const assets: Record<'png' | 'jpeg' | 'webp', AssetRecord> = {} as Record<'png' | 'jpeg' | 'webp', AssetRecord>;

  beforeAll(async () => {
    studio = await startAssetStudio();
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      assets[format] = await saveAsset(studio.ctx, {
        bytes: await makeImage(format, { width: 800, height: 400 }),
        metadata: metadata({ prompt: `served ${format}` }),
      });
    }
  });
  afterAll(() => studio.stop());

  it('streams each image with its content type, length and caching headers', async () => {
    for (const [format, mime, extension] of [
      ['png', 'image/png', '.png'],
      ['jpeg', 'image/jpeg', '.jpg'],
      ['webp', 'image/webp', '.webp'],
    ] as const) {
      const asset = assets[format];
      expect(asset.filename.endsWith(extension)).toBe(true);
      const response = await studio.request(asset.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(mime);
      expect(response.headers.get('cache-control')).toContain('immutable');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const body = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length'))).toBe(body.length);
      expect(body.length).toBe(asset.bytes);
      expect(body.equals(readFileSync(join(studio.ctx.paths.generatedDir, asset.filename)))).toBe(true);
      expect(sniffImageType(body)).toBe(format);
    }
  });

  it('serves a WebP thumbnail of at most 256 px per side, keeping the aspect ratio', async () => {
    const response = await studio.request(assets.png.thumbnailUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const info = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
    expect(info).toMatchObject({ format: 'webp', width: 256, height: 128 });
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await studio.request(assets.jpeg.url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/jpeg');
    expect(await response.text()).toBe('');
  });

  it('does not serve files that are not live history assets', async () => {
    // A file dropped into the generated dir by hand is not in history.
    writeFileSync(join(studio.ctx.paths.generatedDir, 'stray-file.png'), await makeImage('png'));
    for (const path of [
      '/generated/stray-file.png',
      '/generated/20250101-000000-missing-0000000000.png',
      '/generated/thumbs/stray-file.webp',
    ]) {
      const { status, body } = await getJson<{ error: { code: string } }>(studio, path);
      expect(status).toBe(404);
      expect(body.error.code).toBe('NOT_FOUND');
    }
  });
});

describe('traversal attempts', () => {
  let studio: TestStudio;
  let asset: AssetRecord;
  let secret: string;

  const ATTEMPTS = [
    '..%2F..%2Fetc%2Fpasswd',
    '..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd',
    '%2e%2e%2f%2e%2e%2fstudio.db',
    '%2E%2E%2Fsecret.png',
    '..%5C..%5Csecret.png',
    '%2Fetc%2Fpasswd',
    '%2F%2Fetc%2Fpasswd',
    'secret.png%00.png',
    '.thumbs',
    '.hidden.png',
    'a..b.png',
    '..',
    '%2e%2e',
    'C%3A%5Cwindows%5Cwin.ini',
    'name%20with%20space.png',
  ];

  beforeAll(async () => {
    studio = await startAssetStudio();
    asset = await saveAsset(studio.ctx, { bytes: await makeImage('png'), metadata: metadata() });
    // Its thumbnail follows off the request path; the snapshot below must include it.
    await studio.ctx.derived.idle();
    secret = join(studio.home, 'secret.png');
    writeFileSync(secret, await makeImage('png'));
  });
  afterAll(() => studio.stop());

  const snapshot = () => ({
    generated: listDir(studio.ctx.paths.generatedDir),
    thumbs: listDir(studio.ctx.paths.thumbnailsDir),
    home: listDir(studio.home),
    secret: statSync(secret).mtimeMs,
    rows: embeddedDatabase(studio.ctx).prepare('SELECT filename, deleted_at FROM assets ORDER BY id').all(),
  });

  it('answers 400 INVALID_FILENAME or 404 on every route, and touches nothing', async () => {
    const before = snapshot();
    const raw = (method: string, path: string) => rawRequest(studio.url, { method, path });
    for (const attempt of ATTEMPTS) {
      for (const [method, path] of [
        ['GET', `/generated/${attempt}`],
        ['GET', `/generated/thumbs/${attempt}`],
        ['GET', `/api/history/${attempt}`],
        ['DELETE', `/api/history/${attempt}`],
        ['POST', `/api/history/${attempt}/restore`],
      ]) {
        const response = await raw(method, path);
        expect([400, 404], `${method} ${path} -> ${response.status}`).toContain(response.status);
        if (response.status === 400) expect(JSON.parse(response.body).error.code).toBe('INVALID_FILENAME');
        expect(response.body).not.toContain('root:');
      }
    }
    // Unencoded dot segments are not normalized into another route.
    for (const path of [
      '/generated/../studio.db',
      '/generated/../../etc/passwd',
      '/generated/thumbs/../secret.png',
      '/generated//etc/passwd',
    ]) {
      const response = await raw('GET', path);
      expect([400, 404]).toContain(response.status);
      expect(response.headers['content-type']).toContain('application/json');
    }
    // Over-long names: refused by the allow-list (100 characters) or by the router before any route.
    for (const name of [`${'a'.repeat(97)}.png`, `${'a'.repeat(300)}.png`]) {
      const response = await raw('GET', `/generated/${name}`);
      expect([400, 414]).toContain(response.status);
    }
    expect((await raw('GET', `/generated/${'a'.repeat(96)}.png`)).status).toBe(404);
    expect(snapshot()).toEqual(before);
    expect((await studio.request(asset.url)).status).toBe(200);
  });
});
