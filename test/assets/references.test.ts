import { rmSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/studio/errors.js';
import type { AssetRecord } from '../../src/studio/assets.js';
import { LIMITS } from '../../src/studio/catalog/limits.js';
import { loadImageInput, loadReferences } from '../../src/studio/references.js';
import { makeImage, seed, startAssetStudio, type TestStudio } from './helpers.js';

/** The ServiceError a promise rejects with (fails the test when it resolves or throws something else). */
async function rejection(promise: Promise<unknown>): Promise<ServiceError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('expected a rejection');
}

describe('references', () => {
  let studio: TestStudio;
  let png: Buffer;
  let jpeg: Buffer;
  let webp: Buffer;
  let saved: AssetRecord[];
  const load = (items: unknown, max = 5, extra: { tooManyCode?: 'CLIGEN_REF_TOO_MANY' | 'EPSILON_REF_UNSUPPORTED'; field?: string } = {}) =>
    loadReferences(studio.ctx, items, { lane: 'gamma', max, ...extra });

  beforeAll(async () => {
    studio = await startAssetStudio();
    png = await makeImage('png', { width: 40, height: 30 });
    jpeg = await makeImage('jpeg', { width: 50, height: 20 });
    webp = await makeImage('webp', { width: 16, height: 64, alpha: true });
    saved = await seed(studio, 3);
  });
  afterAll(() => studio.stop());

  it('loads a data URL, plain base64, URL-safe base64 and an object with a name', async () => {
    const references = await load([
      `data:image/png;base64,${png.toString('base64')}`,
      jpeg.toString('base64'),
      webp.toString('base64url'),
      { data: `data:application/octet-stream;base64,${png.toString('base64')}`, name: 'my "cat"\r\n.png' },
    ]);
    expect(references.map(({ format, mime, width, height, source }) => ({ format, mime, width, height, source }))).toEqual([
      { format: 'png', mime: 'image/png', width: 40, height: 30, source: 'inline' },
      { format: 'jpeg', mime: 'image/jpeg', width: 50, height: 20, source: 'inline' },
      { format: 'webp', mime: 'image/webp', width: 16, height: 64, source: 'inline' },
      { format: 'png', mime: 'image/png', width: 40, height: 30, source: 'inline' },
    ]);
    expect(references[0].bytes.equals(png)).toBe(true);
    expect(references[0].filename).toBeUndefined();
    expect(references[3].filename).toBe('my _cat___.png');
  });

  it('loads history files by name, as a string or { filename }', async () => {
    const references = await load([saved[0].filename, { filename: saved[1].filename }]);
    expect(references.map((reference) => [reference.source, reference.filename, reference.format, reference.width])).toEqual([
      ['history', saved[0].filename, 'png', 64],
      ['history', saved[1].filename, 'png', 64],
    ]);
  });

  it('answers an empty list for absent references', async () => {
    expect(await load(undefined)).toEqual([]);
    expect(await load(null)).toEqual([]);
    expect(await load([])).toEqual([]);
  });

  it('counts first: REFERENCE_TOO_MANY or the lane code, with { max, got }', async () => {
    const tooMany = await rejection(
      load(
        [png, png, png].map((bytes) => bytes.toString('base64')),
        2,
      ),
    );
    expect(tooMany.code).toBe('REFERENCE_TOO_MANY');
    expect(tooMany.details).toMatchObject({ max: 2, got: 3, lane: 'gamma' });
    // Counted before anything is decoded: junk items do not change the answer.
    const laneCode = await rejection(load(['junk', 'junk', 'junk', 'junk'], 3, { tooManyCode: 'CLIGEN_REF_TOO_MANY' }));
    expect(laneCode.code).toBe('CLIGEN_REF_TOO_MANY');
    expect(laneCode.details).toMatchObject({ max: 3, got: 4 });
    const none = await rejection(load([png.toString('base64')], 0, { tooManyCode: 'EPSILON_REF_UNSUPPORTED' }));
    expect(none.code).toBe('EPSILON_REF_UNSUPPORTED');
  });

  it('refuses an image over the size limit (decoded bytes) with 413 REFERENCE_TOO_LARGE', async () => {
    const base64 = 'A'.repeat(Math.ceil(((LIMITS.referenceMaxBytes + 3) * 4) / 3 / 4) * 4);
    const error = await rejection(load([png.toString('base64'), `data:image/png;base64,${base64}`]));
    expect(error.code).toBe('REFERENCE_TOO_LARGE');
    expect(error.status).toBe(413);
    expect(error.details).toMatchObject({ field: 'references', index: 1, maxBytes: LIMITS.referenceMaxBytes });
  });

  it('sniffs the type from the bytes: GIF, text and a PNG name on JPEG bytes', async () => {
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
      .gif()
      .toBuffer();
    for (const item of [
      gif.toString('base64'),
      `data:image/png;base64,${Buffer.from('just some text, not an image').toString('base64')}`,
    ]) {
      const error = await rejection(load([item]));
      expect(error.code).toBe('REFERENCE_TYPE_UNSUPPORTED');
      expect(error.status).toBe(415);
    }
    // The declared type and name do not matter; JPEG bytes are JPEG.
    const [reference] = await load([{ data: `data:image/png;base64,${jpeg.toString('base64')}`, name: 'fake.png' }]);
    expect(reference.format).toBe('jpeg');
  });

  it('refuses malformed items with REFERENCE_INVALID', async () => {
    const truncated = Buffer.concat([png.subarray(0, 8), Buffer.from('garbage that is no IHDR chunk')]);
    const cases: unknown[] = [
      'not*base64!',
      'data:image/png,rawtext',
      'data:image/png;base64',
      '',
      'QQ=Q',
      truncated.toString('base64'),
      42,
      { data: png.toString('base64'), filename: saved[0].filename },
      { name: 'x.png' },
      { data: png.toString('base64'), name: 7 },
      [png.toString('base64')],
    ];
    for (const item of cases) {
      const error = await rejection(load([item]));
      expect(error.code, JSON.stringify(item).slice(0, 60)).toBe('REFERENCE_INVALID');
      expect(error.details).toMatchObject({ field: 'references', index: 0 });
    }
    const notArray = await rejection(load('abc'));
    expect(notArray.code).toBe('REFERENCE_INVALID');
  });

  it('answers REFERENCE_NOT_FOUND for unknown, tombstoned and vanished history files', async () => {
    const unknown = await rejection(load(['20250101-000000-nothing-0000000000.png']));
    expect(unknown.code).toBe('REFERENCE_NOT_FOUND');
    expect(unknown.status).toBe(404);

    await studio.request(`/api/history/${saved[2].filename}`, { method: 'DELETE' });
    expect((await rejection(load([{ filename: saved[2].filename }]))).code).toBe('REFERENCE_NOT_FOUND');

    rmSync(join(studio.ctx.paths.generatedDir, saved[1].filename));
    expect((await rejection(load([saved[1].filename]))).code).toBe('REFERENCE_NOT_FOUND');
  });

  it('answers INVALID_FILENAME for names outside the allow-list', async () => {
    for (const name of ['../../etc/passwd.png', '/etc/passwd.png', '..\\..\\x.png', '.hidden.png', 'a/b.png', 'x.png\0.png', 'x.gif']) {
      const error = await rejection(load([{ filename: name }]));
      expect(error.code, name).toBe('INVALID_FILENAME');
    }
    // A bare string with a dot is read as a file name too.
    expect((await rejection(load(['../../etc/passwd']))).code).toBe('INVALID_FILENAME');
  });

  it('loadImageInput: one image, errors name the field', async () => {
    const image = await loadImageInput(studio.ctx, `data:image/webp;base64,${webp.toString('base64')}`, 'image');
    expect(image).toMatchObject({ format: 'webp', width: 16, height: 64, source: 'inline' });
    const fromHistory = await loadImageInput(studio.ctx, { filename: saved[0].filename }, 'image');
    expect(fromHistory.source).toBe('history');
    const missing = await rejection(loadImageInput(studio.ctx, undefined, 'image'));
    expect(missing.code).toBe('REFERENCE_INVALID');
    expect(missing.details).toEqual({ field: 'image' });
    const bad = await rejection(loadImageInput(studio.ctx, 'R0lGODlh', 'mask'));
    expect(bad.code).toBe('REFERENCE_TYPE_UNSUPPORTED');
    expect(bad.details).toEqual({ field: 'mask' });
  });
});
