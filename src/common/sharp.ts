import type { Sharp, SharpOptions } from 'sharp';

// sharp (libvips) is loaded on first use, not at start: a studio that has not
// made an image yet starts faster and holds less memory. Its work runs on
// libuv's thread pool, off the event loop.

type SharpFactory = (input?: Buffer, options?: SharpOptions) => Sharp;
let loading: Promise<SharpFactory> | undefined;

export const loadSharp = (): Promise<SharpFactory> =>
  (loading ??= import('sharp').then((module) => {
    // libvips' operation cache (50 MB by default) keeps results for inputs seen again; every image
    // here is new, so it only held memory that a long run never gave back (bench/load).
    module.default.cache(false);
    return module.default as unknown as SharpFactory;
  }));
