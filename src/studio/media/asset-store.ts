import type { Readable } from 'node:stream';

// The port to where asset bytes live: the images of history and their
// thumbnails. Asynchronous so that an S3-compatible store is a second
// implementation, not a rewrite; the first one is files in the state dir
// (store/asset-files.ts). Names are validated before they reach a store; a
// store never decides what an asset is, only keeps its bytes.

/** The two kinds of files: an asset's own bytes (durable) and its thumbnail (derived, made again when lost). */
export type AssetSpace = 'generated' | 'thumbnails';

/** An open file to send: its size, and its bytes as a stream (which ends the read). */
export interface AssetBody {
  readonly size: number;
  readonly stream: Readable;
}

export interface AssetStore {
  /**
   * Writes a new asset's bytes durably under the first of `names` that is
   * free, never replacing a file; answers the name written, or undefined when
   * every one is taken. The buffer is handed over (empty afterwards).
   */
  create(names: readonly string[], bytes: Buffer): Promise<string | undefined>;
  /** Writes a derived file (a thumbnail) whole or not at all, replacing any; not flushed (it is made again when lost). */
  replace(space: AssetSpace, name: string, bytes: Buffer): Promise<void>;
  /** The bytes of a file; undefined when it is missing. Larger than `maxBytes`: `{ tooLarge: size }`, nothing read. */
  read(space: AssetSpace, name: string, options?: { readonly maxBytes?: number }): Promise<Buffer | { readonly tooLarge: number } | undefined>;
  /** A file to send; undefined when it is missing. */
  open(space: AssetSpace, name: string): Promise<AssetBody | undefined>;
  exists(space: AssetSpace, name: string): Promise<boolean>;
  /** Removes a file; a missing one is no error. */
  remove(space: AssetSpace, name: string): Promise<void>;
  /** The names of the files of a space (start-up repair looks for images without a row). */
  names(space: AssetSpace): Promise<string[]>;
  /** Total bytes and files of a space. */
  usage(space: AssetSpace): Promise<{ readonly bytes: number; readonly files: number }>;
  /** A write is coming (an upstream is making the image): the store may get ready for it. */
  warm(): void;
  /** Start-up: removes what interrupted writes of earlier runs left; answers how many. */
  removeLeftovers(): Promise<number>;
}
