import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { BOOT_ID } from '../../src/common/atomic-file.js';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { saveAsset } from '../../src/studio/assets.js';
import { startMaintenance } from '../../src/studio/maintenance.js';
import { studioPaths } from '../../src/studio/paths.js';
import { makeTempHome } from '../helpers/studio.js';
import { getJson, listDir, makeImage, metadata, seed, startAssetStudio } from './helpers.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

describe('crash safety', () => {
  it('a failed database insert leaves no files behind and nothing in history', async () => {
    const studio = await startAssetStudio();
    try {
      await seed(studio, 1);
      const before = { generated: listDir(studio.ctx.paths.generatedDir), thumbs: listDir(studio.ctx.paths.thumbnailsDir) };
      // A real failure of the real database: a trigger that aborts every insert.
      embeddedDatabase(studio.ctx).exec(
        `CREATE TRIGGER refuse_assets BEFORE INSERT ON assets BEGIN SELECT RAISE(ABORT, 'disk on fire'); END;`,
      );
      for (const format of ['png', 'jpeg', 'webp'] as const) {
        await expect(saveAsset(studio.ctx, { bytes: await makeImage(format), metadata: metadata() })).rejects.toThrow(/disk on fire/);
      }
      expect({ generated: listDir(studio.ctx.paths.generatedDir), thumbs: listDir(studio.ctx.paths.thumbnailsDir) }).toEqual(before);
      expect((await getJson<{ items: unknown[] }>(studio, '/api/history')).body.items).toHaveLength(1);

      embeddedDatabase(studio.ctx).exec('DROP TRIGGER refuse_assets');
      await saveAsset(studio.ctx, { bytes: await makeImage('png'), metadata: metadata() });
      expect((await getJson<{ items: unknown[] }>(studio, '/api/history')).body.items).toHaveLength(2);
    } finally {
      await studio.stop();
    }
  });

  it('gives history back a complete image whose row a crash lost, on the next start', async () => {
    const home = makeTempHome();
    const first = await startAssetStudio({ SVC_HOME: home });
    const saved = await saveAsset(first.ctx, {
      bytes: await makeImage('webp'),
      metadata: metadata({ prompt: 'an orphaned owl', requestId: 'orphan-1' }),
    });
    await first.ctx.derived.idle();
    // The crash: the file was renamed into place but its row never committed (and no thumbnail).
    embeddedDatabase(first.ctx).prepare('DELETE FROM assets WHERE filename = ?').run(saved.filename);
    rmSync(join(first.ctx.paths.thumbnailsDir, saved.thumbnailUrl.split('/').pop() as string));
    // An image that is not ours (no embedded metadata) must stay out of history.
    writeFileSync(join(first.ctx.paths.generatedDir, '20250101-000000-foreign-0000000000.png'), await makeImage('png'));
    await first.close();

    const second = await startAssetStudio({ SVC_HOME: home });
    try {
      await vi.waitFor(
        async () => expect((await getJson<{ items: { filename: string }[] }>(second, '/api/history')).body.items).toHaveLength(1),
        { timeout: 10_000, interval: 50 },
      );
      const { body } = await getJson<{ items: { filename: string; prompt: string; requestId: string; format: string; width: number }[] }>(
        second,
        '/api/history',
      );
      expect(body.items[0]).toMatchObject({
        filename: saved.filename,
        prompt: 'an orphaned owl',
        requestId: 'orphan-1',
        format: 'webp',
        width: saved.width,
      });
      const thumbnail = await fetch(`${second.url}${saved.thumbnailUrl}`);
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe('image/webp');
    } finally {
      await second.stop();
    }
  });

  it("removes every temp file of an earlier boot on start (whatever pid wrote it), and keeps this boot's", async () => {
    const home = makeTempHome();
    const paths = studioPaths({ SVC_HOME: home });
    mkdirSync(paths.thumbnailsDir, { recursive: true });
    // An earlier boot's files, one of them from this very pid (a reused pid must not keep a file alive),
    // an old pid-style name, and a name without any id.
    const earlier = [
      join(paths.generatedDir, '.20250101-000000-x-0000000000.png.b0123456789ab.a1b2c3d4.tmp'),
      join(paths.thumbnailsDir, '.20250101-000000-x-0000000000.webp.b0123456789ab.a1b2c3d4.tmp'),
      join(paths.generatedDir, `.20250101-000000-z-0000000000.png.${process.pid}.deadbeef.tmp`),
      join(paths.generatedDir, '.leftover.tmp'),
    ];
    // A write of this boot in progress (the studio runs in this process, so it shares the boot id).
    const current = `.20250101-000000-y-0000000000.png.${BOOT_ID}.deadbeef.tmp`;
    for (const file of [...earlier, join(paths.generatedDir, current)]) writeFileSync(file, 'partial');
    writeFileSync(join(paths.generatedDir, 'not-a-temp.png'), 'not ours to judge');

    const studio = await startAssetStudio({ SVC_HOME: home });
    try {
      // The start-up sweep runs in the background (one directory after the other); wait (bounded) until both are done.
      await vi.waitFor(
        () => {
          expect(listDir(paths.generatedDir)).toEqual([current, '.thumbs', 'not-a-temp.png']);
          expect(listDir(paths.thumbnailsDir)).toEqual([]);
        },
        { timeout: 10_000, interval: 20 },
      );
      // The periodic sweep removes them too.
      writeFileSync(earlier[0], 'partial');
      expect(await studio.ctx.assets.removeLeftovers()).toBe(1);
      expect(listDir(paths.generatedDir)).toEqual([current, '.thumbs', 'not-a-temp.png']);
    } finally {
      await studio.stop();
    }
  });

  it('a stopped maintenance loop settles and runs nothing more', async () => {
    const studio = await startAssetStudio();
    try {
      const errors: unknown[] = [];
      const sweeper = startMaintenance(studio.ctx, { intervalMs: 5, onError: (error) => errors.push(error) });
      sweeper.stop();
      await sweeper.idle();
      expect(errors).toEqual([]);
    } finally {
      await studio.stop();
    }
  });
});
