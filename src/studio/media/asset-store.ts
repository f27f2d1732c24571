import type { Readable } from 'node:stream';
import { ServiceError } from '../errors.js';
import { assertValidFilename, isValidAssetFilename } from './filename.js';

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

/** A stored input's name: the SHA-256 of its bytes. */
const INPUT_NAME = /^[0-9a-f]{64}$/;

/** Whether `name` can name a file of `space`: an asset file name, or for inputs the hash of their content. */
export const isStoredName = (space: AssetSpace, name: string): boolean =>
  space === 'inputs' ? INPUT_NAME.test(name) : isValidAssetFilename(name);

/** Throws INVALID_FILENAME unless `name` can name a file of `space`. */
export function assertStoredName(space: AssetSpace, name: string): void {
  if (space !== 'inputs') return assertValidFilename(name);
  if (!INPUT_NAME.test(name))
    throw new ServiceError('INVALID_FILENAME', `"${name.slice(0, 80)}" is not the name of a stored input (its SHA-256, in hex).`);
}

/** An open file to send: its size, and its bytes as a stream (which ends the read). */
export interface AssetBody {
  /** The whole file's size. */
  readonly size: number;
  /** When a range was asked for: the bytes the stream holds (first and last, inclusive); absent when it holds the whole file. */
  readonly part?: BytePart;
  readonly stream: Readable;
}

/** Bytes of a file, first and last (inclusive, as HTTP's Content-Range says them). */
export interface BytePart {
  readonly start: number;
  readonly end: number;
}

/**
 * A part of a file asked for, in the forms of an HTTP Range: from `start` to `end` (inclusive; to
 * the last byte when absent, and clipped to it), or the last `suffix` bytes.
 */
export type ByteRange = { readonly start: number; readonly end?: number } | { readonly suffix: number };

/** What a store knows of a file without reading it (a HEAD answers from it). */
export interface FileFacts {
  readonly size: number;
  /** When it was last written (ms since the epoch); absent when the store does not say. */
  readonly modifiedAt?: number;
}

/** A range that holds no byte of the file (it starts past the end, or the file is empty): the file's size, nothing read. */
export interface OutsideFile {
  readonly size: number;
  readonly outside: true;
}

/** The bytes of a file of `size` bytes that `range` asks for; undefined when it asks for none. */
export function partOf(range: ByteRange, size: number): BytePart | undefined {
  if ('suffix' in range) return range.suffix > 0 && size > 0 ? { start: Math.max(0, size - range.suffix), end: size - 1 } : undefined;
  if (range.start >= size) return undefined;
  return { start: range.start, end: Math.min(range.end ?? size - 1, size - 1) };
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
  /** The part of a file that `range` asks for (the store reads no more); outside when it holds no byte of it. */
  open(space: AssetSpace, name: string, range?: ByteRange): Promise<AssetBody | OutsideFile | undefined>;
  exists(space: AssetSpace, name: string): Promise<boolean>;
  /** Removes a file; a missing one is no error. */
  remove(space: AssetSpace, name: string): Promise<void>;
  /** The names of the files of a space (start-up repair looks for images without a row). */
  names(space: AssetSpace): Promise<string[]>;
  /** A file's size and when it was last written (ms since the epoch), nothing read; undefined when it is missing. */
  stat(space: AssetSpace, name: string): Promise<FileFacts | undefined>;
  /** Total bytes and files of a space. */
  usage(space: AssetSpace): Promise<{ readonly bytes: number; readonly files: number }>;
  /** Room left where the bytes are kept (free to this process, and in all); undefined when it cannot be told. */
  capacity(): Promise<{ readonly freeBytes: number; readonly totalBytes: number } | undefined>;
  /**
   * A write is coming (an upstream is making the image): the store may get ready for it, for every
   * write expected at once. The returned function says the write was given, or will not be.
   */
  expectWrite(): () => void;
  /** Start-up: removes what interrupted writes of earlier runs left; answers how many. */
  removeLeftovers(): Promise<number>;
}
