import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSimVideo } from '../../src/sim/alpha/video-render.js';
import type { AssetRecord } from '../../src/studio/assets.js';
import type { AssetSpace, AssetStore, ByteRange } from '../../src/studio/media/asset-store.js';
import { s3AssetStoreFromEnv, type S3AssetStore } from '../../src/studio/store/s3/asset-store.js';
import { saveVideoAsset } from '../../src/studio/video/save-video.js';
import { startS3, type TestS3 } from '../helpers/s3.js';
import { startAssetStudio, type TestStudio } from './helpers.js';

// Range requests on the files of history (a video element seeks with them): one range is
// answered 206 with its part, a range past the end 416, anything else the whole file. The same
// through the local files and through an S3-compatible bucket (s3rver), whose store fetches only
// the part asked for.

describe.each(['the local files', 'an S3-compatible bucket'] as const)('Range requests on %s', (where) => {
  let studio: TestStudio;
  let s3: TestS3 | undefined;
  let s3Store: S3AssetStore | undefined;
  let video: AssetRecord;
  let bytes: Buffer;

  beforeAll(async () => {
    studio = await startAssetStudio();
    if (where === 'an S3-compatible bucket') {
      s3 = await startS3();
      s3Store = s3AssetStoreFromEnv({ ...s3.env, SVC_ASSET_STORE: `s3://${s3.bucket}/studio` });
      (studio.ctx as { assets: AssetStore }).assets = s3Store!;
    }
    video = await saveVideoAsset(studio.ctx, {
      bytes: await renderSimVideo({ prompt: 'a kite seen in parts', width: 320, height: 180, durationSeconds: 1 }),
      metadata: {
        prompt: 'a kite seen in parts',
        lane: 'alpha',
        model: 'alpha-video',
        requestId: `ranges-${where}`,
        kind: 'video',
        settings: {},
      },
    });
    // The MP4 as saved (its metadata embedded).
    const saved = await studio.ctx.assets.read('generated', video.filename);
    if (!(saved instanceof Buffer)) throw new Error('the video was not saved');
    bytes = saved;
  }, 60_000);
  afterAll(async () => {
    await studio?.stop();
    s3Store?.close();
    await s3?.stop();
  });

  const get = (headers: Record<string, string>) => studio.request(video.url, { headers });

  it('serves the whole MP4 without a Range, saying ranges are accepted', async () => {
    if (s3Store) expect(await s3Store.exists('generated', video.filename)).toBe(true);
    const response = await get({});
    expect(response.status).toBe(200);
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-type')).toBe('video/mp4');
    expect(response.headers.get('content-range')).toBeNull();
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers one range with its part: from-to, from, and the last bytes', async () => {
    const size = bytes.length;
    for (const [range, start, end] of [
      ['bytes=0-99', 0, 99],
      ['bytes=1000-', 1000, size - 1],
      ['bytes=-50', size - 50, size - 1],
      [`bytes=${size - 10}-${size + 1000}`, size - 10, size - 1],
    ] as const) {
      const response = await get({ range });
      expect(response.status, range).toBe(206);
      expect(response.headers.get('content-range'), range).toBe(`bytes ${start}-${end}/${size}`);
      expect(response.headers.get('content-length'), range).toBe(String(end - start + 1));
      expect(response.headers.get('cache-control'), range).toContain('immutable');
      expect(Buffer.from(await response.arrayBuffer()).equals(bytes.subarray(start, end + 1)), range).toBe(true);
    }
  });

  it('answers a range past the end 416 with the size', async () => {
    const response = await get({ range: `bytes=${bytes.length}-` });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    expect(await response.json()).toMatchObject({ error: { code: 'RANGE_NOT_SATISFIABLE', details: { size: bytes.length } } });
  });

  it('sends the whole file for several ranges, a malformed one, another unit, or If-Range', async () => {
    const asked: Record<string, string>[] = [
      { range: 'bytes=0-1,5-6' },
      { range: 'bytes=9-1' },
      { range: 'bytes=-' },
      { range: 'items=0-1' },
      { range: 'bytes=0-1', 'if-range': 'Wed, 21 Oct 2015 07:28:00 GMT' },
    ];
    for (const headers of asked) {
      const response = await get(headers);
      expect(response.status, JSON.stringify(headers)).toBe(200);
      expect(Buffer.from(await response.arrayBuffer()).length).toBe(bytes.length);
    }
  });

  it('answers HEAD with the headers and no body, with or without a range, reading nothing of the file', async () => {
    // Every open of a file by the store is counted: a HEAD must not open (from a bucket, start downloading) the file.
    const store = studio.ctx.assets;
    const open = store.open.bind(store);
    let opened = 0;
    const counting = ((space: AssetSpace, name: string, range?: ByteRange) => {
      opened += 1;
      return open(space, name, range);
    }) as AssetStore['open'];
    (store as { open: AssetStore['open'] }).open = counting;
    const outside = await studio.request(video.url, { method: 'HEAD', headers: { range: `bytes=${bytes.length}-` } });
    expect(outside.status).toBe(416);
    expect(outside.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    const whole = await studio.request(video.url, { method: 'HEAD' });
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-length')).toBe(String(bytes.length));
    expect(await whole.text()).toBe('');
    const part = await studio.request(video.url, { method: 'HEAD', headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 10-19/${bytes.length}`);
    expect(await part.text()).toBe('');
    expect(opened).toBe(0);
    const thumbnail = await studio.request(video.thumbnailUrl, { method: 'HEAD' });
    expect([200, 404]).toContain(thumbnail.status);
    expect(opened).toBe(0);
    expect((await get({ range: 'bytes=0-0' })).status).toBe(206);
    expect(opened).toBe(1);
    (store as { open: AssetStore['open'] }).open = open;
  });

  it('still answers 404 for a file that is not a live asset, whatever the range', async () => {
    const response = await studio.request('/generated/20250101-000000-missing-0000000000.mp4', { headers: { range: 'bytes=0-1' } });
    expect(response.status).toBe(404);
  });
});
