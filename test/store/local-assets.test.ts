import { mkdirSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DurableWriter } from '../../src/common/durable-writer.js';
import { EventChannel } from '../../src/common/events/channel.js';
import { LocalAssetStore } from '../../src/studio/store/asset-files.js';
import { describeAssetStoreContract } from './contracts/asset-store.contract.js';
import { describeEventBusContract } from './contracts/event-bus.contract.js';

// The local implementations run the AssetStore and EventBus contracts: files
// of a temp state dir written on the durable writer's thread, and the
// in-process event channel.

describeAssetStoreContract('files of the state dir', async () => {
  const home = mkdtempSync(join(tmpdir(), 'svc-assets-contract-'));
  const dirs = {
    generatedDir: join(home, 'generated'),
    thumbnailsDir: join(home, 'generated', '.thumbs'),
    jobInputsDir: join(home, 'job-inputs'),
  };
  for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
  const writer = new DurableWriter();
  return {
    assets: new LocalAssetStore(dirs, writer),
    close: async () => {
      await writer.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
});

describe('the room left on the state dir', () => {
  let home: string;
  let writer: DurableWriter;
  const store = () => {
    home = mkdtempSync(join(tmpdir(), 'svc-capacity-'));
    const dirs = { generatedDir: join(home, 'generated'), thumbnailsDir: join(home, 'thumbs'), jobInputsDir: join(home, 'inputs') };
    for (const dir of Object.values(dirs)) mkdirSync(dir, { recursive: true });
    writer = new DurableWriter();
    return new LocalAssetStore(dirs, writer);
  };
  afterEach(async () => {
    await writer.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('is read once for callers at once, and a reading that shows plenty answers the next callers as it is', async () => {
    const assets = store();
    const first = assets.capacity();
    // A burst of jobs, each checked at submit: one reading of the file system for all of them.
    expect(assets.capacity()).toBe(first);
    const reading = await first;
    const disk = statfsSync(join(home, 'generated'));
    expect(reading).toEqual({ freeBytes: expect.any(Number), totalBytes: disk.blocks * disk.bsize });
    if (!reading || reading.freeBytes < 1024 ** 3) return expect.fail(`this test needs 1 GiB free under ${tmpdir()}`);
    // Plenty of room: answered from the reading, with no trip to the file system.
    expect(await assets.capacity()).toBe(reading);
  });
});

describeEventBusContract('the event channel', (options) => new EventChannel({ ...options, onListenerError: () => {} }));
