import type { AssetBody, AssetSpace, AssetStore, ByteRange, OutsideFile } from '../media/asset-store.js';

// An AssetStore whose implementation is loaded on open, not at import: the S3 store brings the AWS
// SDK (a quarter of a second and 20 MiB), which a studio without SVC_ASSET_STORE never loads. The
// studio's start waits for `loaded` (store/open.ts), so no call waits here in practice.

export interface DeferredAssetStore extends AssetStore {
  readonly loaded: Promise<void>;
  close(): Promise<void>;
}

export function deferredAssetStore(load: () => Promise<AssetStore & { close(): void }>): DeferredAssetStore {
  let store: (AssetStore & { close(): void }) | undefined;
  const loading = load().then((made) => (store = made));
  loading.catch(() => {}); // reported by `loaded` and by each call
  const use = async () => store ?? (await loading);
  function open(space: AssetSpace, name: string): Promise<AssetBody | undefined>;
  function open(space: AssetSpace, name: string, range?: ByteRange): Promise<AssetBody | OutsideFile | undefined>;
  async function open(space: AssetSpace, name: string, range?: ByteRange) {
    return (await use()).open(space, name, range);
  }
  return {
    loaded: loading.then(() => undefined),
    create: async (names, bytes) => (await use()).create(names, bytes),
    put: async (space, name, bytes) => (await use()).put(space, name, bytes),
    replace: async (space, name, bytes) => (await use()).replace(space, name, bytes),
    read: async (space, name, options) => (await use()).read(space, name, options),
    open,
    exists: async (space, name) => (await use()).exists(space, name),
    remove: async (space, name) => (await use()).remove(space, name),
    names: async (space) => (await use()).names(space),
    modifiedAt: async (space, name) => (await use()).modifiedAt(space, name),
    usage: async (space) => (await use()).usage(space),
    capacity: async () => (await use()).capacity(),
    warm: () => store?.warm(),
    removeLeftovers: async () => (await use()).removeLeftovers(),
    async close() {
      (await loading.catch(() => undefined))?.close();
    },
  };
}
