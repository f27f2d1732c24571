import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Readable } from 'node:stream';
import type { AssetBody, AssetStore, ByteRange, OutsideFile } from '../../../src/studio/media/asset-store.js';

// The AssetStore contract: where asset bytes live. New names never replace a
// file, spaces are apart, a missing file is undefined (never an error), and
// a read larger than asked for answers its size without the bytes.

export interface AssetStoreHarness {
  readonly assets: AssetStore;
  close(): Promise<void>;
}

const hash = (text: string): string => createHash('sha256').update(text).digest('hex');

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

/** What an open of a range answers, its bytes read as text. */
async function opened(body: AssetBody | OutsideFile | undefined): Promise<unknown> {
  if (!body || 'outside' in body) return body;
  return { size: body.size, part: body.part, text: await text(body.stream) };
}

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

    it('opens the part of a file a range asks for, and says when the range holds none of it', async () => {
      await assets.create(['a.png'], Buffer.from('0123456789'));
      const part = (range: ByteRange) => assets.open('generated', 'a.png', range).then(opened);
      expect(await part({ start: 2, end: 5 })).toEqual({ size: 10, part: { start: 2, end: 5 }, text: '2345' });
      expect(await part({ start: 7 })).toEqual({ size: 10, part: { start: 7, end: 9 }, text: '789' });
      expect(await part({ start: 8, end: 100 })).toEqual({ size: 10, part: { start: 8, end: 9 }, text: '89' });
      expect(await part({ start: 0 })).toEqual({ size: 10, part: { start: 0, end: 9 }, text: '0123456789' });
      expect(await part({ suffix: 3 })).toEqual({ size: 10, part: { start: 7, end: 9 }, text: '789' });
      expect(await part({ suffix: 30 })).toEqual({ size: 10, part: { start: 0, end: 9 }, text: '0123456789' });
      expect(await part({ start: 10 })).toEqual({ size: 10, outside: true });
      expect(await part({ start: 1000, end: 2000 })).toEqual({ size: 10, outside: true });
      expect(await part({ suffix: 0 })).toEqual({ size: 10, outside: true });
      expect(await assets.open('generated', 'missing.png', { start: 0 })).toBeUndefined();
      expect(await assets.open('generated', 'missing.png', { suffix: 4 })).toBeUndefined();
      // Without a range: the whole file, no part.
      expect(await opened(await assets.open('generated', 'a.png'))).toEqual({ size: 10, part: undefined, text: '0123456789' });
    });

    it('keeps an empty file: read whole or within a limit, opened whole, no range inside it', async () => {
      expect(await assets.put('inputs', hash(''), Buffer.alloc(0))).toBe(true);
      expect(await assets.read('inputs', hash(''))).toEqual(Buffer.alloc(0));
      expect(await assets.read('inputs', hash(''), { maxBytes: 4 })).toEqual(Buffer.alloc(0));
      expect(await opened(await assets.open('inputs', hash('')))).toEqual({ size: 0, part: undefined, text: '' });
      expect(await assets.open('inputs', hash(''), { start: 0 })).toEqual({ size: 0, outside: true });
      expect(await assets.open('inputs', hash(''), { suffix: 5 })).toEqual({ size: 0, outside: true });
    });

    it('refuses names it would not write, in every space', async () => {
      await expect(assets.put('inputs', 'not-a-hash', Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_FILENAME' });
      await expect(assets.read('generated', '../escape.png')).rejects.toMatchObject({ code: 'INVALID_FILENAME' });
      await expect(assets.replace('thumbnails', 'a/b.webp', Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_FILENAME' });
      await expect(assets.create(['.hidden.png'], Buffer.from('x'))).rejects.toMatchObject({ code: 'INVALID_FILENAME' });
      expect(await assets.names('generated')).toEqual([]);
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

    it("says a file's size and when it was written without reading it, and how much room is left", async () => {
      const before = Date.now();
      const input = hash('timed');
      await assets.put('inputs', input, Buffer.from('timed'));
      const facts = await assets.stat('inputs', input);
      expect(facts?.size).toBe(5);
      expect(facts?.modifiedAt).toBeGreaterThanOrEqual(before - 2_000);
      expect(facts?.modifiedAt).toBeLessThanOrEqual(Date.now() + 2_000);
      expect(await assets.stat('inputs', hash('missing'))).toBeUndefined();
      const room = await assets.capacity();
      if (room) {
        expect(room.freeBytes).toBeGreaterThanOrEqual(0);
        expect(room.totalBytes).toBeGreaterThanOrEqual(room.freeBytes);
      }
    });
  });
}
