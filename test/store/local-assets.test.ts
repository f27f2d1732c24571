import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

describeEventBusContract('the event channel', (options) => new EventChannel({ ...options, onListenerError: () => {} }));
