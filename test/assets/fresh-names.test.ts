import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isAtomicTempName } from '../../src/common/atomic-file.js';
import { saveAsset } from '../../src/studio/assets.js';
import { listDir, makeImage, metadata, startAssetStudio, type TestStudio } from './helpers.js';

// The names saveAsset draws, scripted: a drawn name already used on disk (a file
// no row knows, left by a crash) or in the table must be skipped, never replaced.
const scripted: string[] = [];
vi.mock('../../src/studio/media/filename.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/studio/media/filename.js')>();
  return {
    ...original,
    newAssetFilenames: (...args: Parameters<typeof original.newAssetFilenames>) =>
      original.newAssetFilenames(...args).map((drawn) => scripted.shift() ?? drawn),
  };
});

const name = (suffix: string) => `20261126-010000-a-red-fox-in-the-snow-${suffix}.png`;
let studio: TestStudio;

beforeAll(async () => {
  studio = await startAssetStudio();
});
afterAll(async () => {
  await studio.stop();
});

describe('fresh asset names', () => {
  it('skips a name taken by a file on disk or by a row, and keeps the file it did not own', async () => {
    scripted.push(name('00000000b1'));
    const first = await saveAsset(studio.ctx, { bytes: await makeImage('png'), metadata: metadata() });
    expect(first.filename).toBe(name('00000000b1'));
    const orphan = join(studio.ctx.paths.generatedDir, name('00000000a1'));
    writeFileSync(orphan, 'left by a crash');

    scripted.push(name('00000000a1'), name('00000000b1'), name('00000000c1'));
    const second = await saveAsset(studio.ctx, { bytes: await makeImage('png'), metadata: metadata() });
    expect(second.filename).toBe(name('00000000c1'));
    expect(readFileSync(orphan, 'utf8')).toBe('left by a crash');
    expect((await fetch(`${studio.url}${second.url}`)).status).toBe(200);
  });

  it('answers INTERNAL_ERROR when every draw is taken, and writes nothing', async () => {
    const before = listDir(studio.ctx.paths.generatedDir);
    scripted.push(...Array.from({ length: 5 }, () => name('00000000b1')));
    await expect(saveAsset(studio.ctx, { bytes: await makeImage('png'), metadata: metadata() })).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
    });
    scripted.push(...Array.from({ length: 5 }, () => name('00000000a1')));
    await expect(saveAsset(studio.ctx, { bytes: await makeImage('png'), metadata: metadata() })).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
    });
    expect(listDir(studio.ctx.paths.generatedDir)).toEqual(before);
    expect(listDir(studio.ctx.paths.generatedDir).filter(isAtomicTempName)).toEqual([]);
  });
});
