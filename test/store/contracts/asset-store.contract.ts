import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AssetStore } from '../../../src/studio/media/asset-store.js';

// The AssetStore contract: where asset bytes live. New names never replace a
// file, spaces are apart, a missing file is undefined (never an error), and
// a read larger than asked for answers its size without the bytes.

export interface AssetStoreHarness {
  readonly assets: AssetStore;
  close(): Promise<void>;
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

export function describeAssetStoreContract(name: string, make: () => Promise<AssetStoreHarness>): void {
  describe(`AssetStore contract: ${name}`, () => {
    let harness: AssetStoreHarness;
    let assets: AssetStore;
    beforeEach(async () => {
      harness = await make();
      assets = harness.assets;
    });
    afterEach(() => harness.close());

    it('creates a new asset under the first free name, never replacing one', async () => {
      expect(await assets.create(['a.png', 'b.png'], Buffer.from('first'))).toBe('a.png');
      expect(await assets.create(['a.png', 'b.png'], Buffer.from('second'))).toBe('b.png');
      expect(await assets.create(['a.png', 'b.png'], Buffer.from('third'))).toBeUndefined();
      expect(await assets.create([], Buffer.from('none'))).toBeUndefined();
      expect(await assets.read('generated', 'a.png')).toEqual(Buffer.from('first'));
      expect(await assets.read('generated', 'b.png')).toEqual(Buffer.from('second'));
    });

    it('reads whole files, refuses more than asked for with the size, and answers undefined for a missing one', async () => {
      await assets.create(['a.png'], Buffer.from('0123456789'));
      expect(await assets.read('generated', 'a.png', { maxBytes: 10 })).toEqual(Buffer.from('0123456789'));
      expect(await assets.read('generated', 'a.png', { maxBytes: 4 })).toEqual({ tooLarge: 10 });
      expect(await assets.read('generated', 'missing.png')).toBeUndefined();
      expect(await assets.open('generated', 'missing.png')).toBeUndefined();
      const body = await assets.open('generated', 'a.png');
      expect(body?.size).toBe(10);
      const chunks: Buffer[] = [];
      for await (const chunk of body?.stream ?? []) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).toString()).toBe('0123456789');
    });

    it('keeps spaces apart; replace overwrites a derived file, put never overwrites', async () => {
      await assets.create(['a.png'], Buffer.from('image'));
      await assets.replace('thumbnails', 'a.png', Buffer.from('thumb 1'));
      await assets.replace('thumbnails', 'a.png', Buffer.from('thumb 2'));
      expect(await assets.read('thumbnails', 'a.png')).toEqual(Buffer.from('thumb 2'));
      expect(await assets.read('generated', 'a.png')).toEqual(Buffer.from('image'));
      const input = hash('input');
      expect(await assets.put('inputs', input, Buffer.from('input'))).toBe(true);
      expect(await assets.put('inputs', input, Buffer.from('other'))).toBe(false);
      expect(await assets.read('inputs', input)).toEqual(Buffer.from('input'));
      expect((await assets.names('inputs')).sort()).toEqual([input]);
      expect(await assets.names('generated')).toEqual(['a.png']);
      expect(await assets.exists('thumbnails', 'a.png')).toBe(true);
      expect(await assets.exists('inputs', hash('never written'))).toBe(false);
    });

    it('removes files (a missing one is no error) and counts what a space holds', async () => {
      await assets.create(['a.png'], Buffer.from('12345'));
      await assets.create(['b.png'], Buffer.from('123'));
      expect(await assets.usage('generated')).toEqual({ bytes: 8, files: 2 });
      await assets.remove('generated', 'a.png');
      await assets.remove('generated', 'a.png');
      expect(await assets.exists('generated', 'a.png')).toBe(false);
      expect(await assets.usage('generated')).toEqual({ bytes: 3, files: 1 });
      expect(await assets.usage('thumbnails')).toEqual({ bytes: 0, files: 0 });
    });

    it('says when a file was written and how much room is left', async () => {
      const before = Date.now();
      const input = hash('timed');
      await assets.put('inputs', input, Buffer.from('timed'));
      const at = await assets.modifiedAt('inputs', input);
      expect(at).toBeGreaterThanOrEqual(before - 2_000);
      expect(at).toBeLessThanOrEqual(Date.now() + 2_000);
      expect(await assets.modifiedAt('inputs', hash('missing'))).toBeUndefined();
      const room = await assets.capacity();
      if (room) {
        expect(room.freeBytes).toBeGreaterThanOrEqual(0);
        expect(room.totalBytes).toBeGreaterThanOrEqual(room.freeBytes);
      }
    });
  });
}
