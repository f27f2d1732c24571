import type { Readable } from 'node:stream';

// The port to where asset bytes live: the images of history, their
// thumbnails, and the input images of jobs. Asynchronous so that an S3-compatible store is a second
// implementation, not a rewrite; the first one is files in the state dir
// (store/asset-files.ts). Names are validated before they reach a store; a
// store never decides what an asset is, only keeps its bytes.

/**
 * The kinds of files: an asset's own bytes (durable), its thumbnail (derived, made again when
 * lost), and the input images of jobs (durable, content-addressed: jobs/inputs.ts).
 */
export type AssetSpace = 'generated' | 'thumbnails' | 'inputs';

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
  /**
   * Writes a file durably (whole or not at all, flushed before it answers) unless the name is
   * taken, never replacing one; true when written. The buffer stays the caller's.
   */
  put(space: AssetSpace, name: string, bytes: Buffer): Promise<boolean>;
  /** Writes a derived file (a thumbnail) whole or not at all, replacing any; not flushed (it is made again when lost). */
  replace(space: AssetSpace, name: string, bytes: Buffer): Promise<void>;
  /** The bytes of a file; undefined when it is missing. Larger than `maxBytes`: `{ tooLarge: size }`, nothing read. */
  read(
    space: AssetSpace,
    name: string,
    options?: { readonly maxBytes?: number },
  ): Promise<Buffer | { readonly tooLarge: number } | undefined>;
  /** A file to send; undefined when it is missing. */
  open(space: AssetSpace, name: string): Promise<AssetBody | undefined>;
  exists(space: AssetSpace, name: string): Promise<boolean>;
  /** Removes a file; a missing one is no error. */
  remove(space: AssetSpace, name: string): Promise<void>;
  /** The names of the files of a space (start-up repair looks for images without a row). */
  names(space: AssetSpace): Promise<string[]>;
  /** When a file was last written (ms since the epoch); undefined when it is missing. */
  modifiedAt(space: AssetSpace, name: string): Promise<number | undefined>;
  /** Total bytes and files of a space. */
  usage(space: AssetSpace): Promise<{ readonly bytes: number; readonly files: number }>;
  /** Room left where the bytes are kept (free to this process, and in all); undefined when it cannot be told. */
  capacity(): Promise<{ readonly freeBytes: number; readonly totalBytes: number } | undefined>;
  /** A write is coming (an upstream is making the image): the store may get ready for it. */
  warm(): void;
  /** Start-up: removes what interrupted writes of earlier runs left; answers how many. */
  removeLeftovers(): Promise<number>;
}
