import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from '../../src/common/events/client.js';
import { assetEventPayloads, type AssetRecord, type GenerationResult } from '../../src/studio/api/index.js';
import { findAsset } from '../../src/studio/store/assets.js';
import { startRig, type Rig } from '../generate/rig.js';
import { embeddedDatabase } from '../../src/studio/store/open.js';

// A generation answers once its image is durable; the thumbnail and the check
// that every pixel decodes follow off the request path, and say so on the
// channel (topic `assets`).

let rig: Rig;

beforeAll(async () => {
  rig = await startRig();
});

afterAll(async () => {
  await rig.stop();
});

/** Follows /api/events until an `assets` event for this file arrives. */
async function assetEvent(filename: string, signal: AbortSignal): Promise<{ event: string } & Record<string, unknown>> {
  const response = await fetch(`${rig.studio.url}/api/events`, {
    headers: { accept: 'text/event-stream', 'last-event-id': `${rig.studio.ctx.channel.runId}-0` },
    signal,
  });
  for await (const message of readSse(response.body as ReadableStream<Uint8Array>)) {
    const event = JSON.parse(message.data) as { topic: string; event: string; filename?: string };
    if (event.topic === 'assets' && event.filename === filename) return event;
  }
  throw new Error('the event stream ended');
}

describe('saving off the request path', () => {
  it('answers before the thumbnail exists, then publishes thumbnail_ready; the thumbnail URL waits for it', async () => {
    const response = await rig.post('/api/generate', { prompt: 'a lighthouse at dusk', provider: 'api' });
    expect(response.status).toBe(200);
    const [image] = ((await response.json()) as GenerationResult).images;
    expect(image.thumbnailReady).toBe(false);
    const watcher = new AbortController();
    try {
      const event = await assetEvent(image.filename, watcher.signal);
      expect(event.event).toBe('thumbnail_ready');
      expect(assetEventPayloads.thumbnail_ready.safeParse(event).error).toBeUndefined();
      expect(event).toMatchObject({ filename: image.filename, requestId: expect.any(String), thumbnailUrl: image.thumbnailUrl });
    } finally {
      watcher.abort();
    }
    const thumbnail = await rig.get(image.thumbnailUrl);
    expect(thumbnail.status).toBe(200);
    expect(thumbnail.headers.get('content-type')).toBe('image/webp');
    const listed = (await (await rig.get('/api/history?limit=1')).json()) as { items: AssetRecord[] };
    expect(listed.items[0]).toMatchObject({ filename: image.filename, thumbnailReady: true });
  });

  it('an image whose header and trailer are fine but whose data is not leaves history and is reported', async () => {
    const response = await rig.post('/api/generate', { prompt: 'a damaged owl [sim:corrupt-image]', provider: 'api' });
    expect(response.status).toBe(200);
    const [image] = ((await response.json()) as GenerationResult).images;
    const watcher = new AbortController();
    try {
      const event = await assetEvent(image.filename, watcher.signal);
      expect(event).toMatchObject({ event: 'asset_broken', filename: image.filename, error: { code: 'UPSTREAM_FAILED' } });
    } finally {
      watcher.abort();
    }
    expect(findAsset(embeddedDatabase(rig.studio.ctx), image.filename)).toMatchObject({
      thumbnail_state: 'failed',
      deleted_at: expect.any(String),
    });
    expect((await rig.get(`/api/history/${image.filename}`)).status).toBe(404);
    expect((await rig.get(image.thumbnailUrl)).status).toBe(404);
  });

  it('makes the thumbnails a stop left pending at the next start', async () => {
    const response = await rig.post('/api/generate', { prompt: 'a pending thumbnail', provider: 'api' });
    const [image] = ((await response.json()) as GenerationResult).images;
    await rig.studio.ctx.derived.idle();
    // As if the studio had stopped before the thumbnail: the row pending, the file gone.
    embeddedDatabase(rig.studio.ctx).prepare(`UPDATE assets SET thumbnail_state = 'pending' WHERE filename = ?`).run(image.filename);
    const { rmSync } = await import('node:fs');
    const { join } = await import('node:path');
    rmSync(join(rig.studio.ctx.paths.thumbnailsDir, image.thumbnailUrl.split('/').pop() as string));
    const { finishPendingAssets } = await import('../../src/studio/assets.js');
    expect(await finishPendingAssets(rig.studio.ctx)).toBe(1);
    expect((await rig.get(image.thumbnailUrl)).status).toBe(200);
    expect(findAsset(embeddedDatabase(rig.studio.ctx), image.filename)?.thumbnail_state).toBe('ready');
  });
});
