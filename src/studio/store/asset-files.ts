import { open, readdir, rm, stat, statfs, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { isAtomicTempName, isThisBootsTempName, writeFileAtomicAsync } from '../../common/atomic-file.js';
import type { DurableWriter } from '../../common/durable-writer.js';
import {
  assertStoredName,
  partOf,
  type AssetBody,
  type AssetSpace,
  type AssetStore,
  type ByteRange,
  type FileFacts,
  type OutsideFile,
} from '../media/asset-store.js';
import { pathInside } from '../media/filename.js';

// The AssetStore port over the state dir: `generated/` holds the images,
// `generated/.thumbs/` their thumbnails, `job-inputs/` the input images of jobs.
// An image or an input is written on the durable writer's thread (temp file,
// fsync, exclusive rename, directory fsync); a thumbnail atomically without
// fsync (derived: start-up makes a lost one again).

/** Files of history are the user's own. */
const PRIVATE_FILE = 0o600;
/**
 * A reading of the room left that shows at least CAPACITY_PLENTY_BYTES free (more than any second of
 * writes takes) answers at once; one older than CAPACITY_FRESH_MS is renewed behind it, for the
 * next caller. Nearer full, every caller reads the file system.
 */
const CAPACITY_FRESH_MS = 1000;
const CAPACITY_PLENTY_BYTES = 1024 ** 3;

interface Capacity {
  freeBytes: number;
  totalBytes: number;
}

export class LocalAssetStore implements AssetStore {
  private readonly dirs: Readonly<Record<AssetSpace, string>>;
  private capacityRead?: Promise<Capacity | undefined>;
  private capacityReading?: { readonly capacity: Capacity; readonly at: number };

  constructor(
    dirs: { readonly generatedDir: string; readonly thumbnailsDir: string; readonly jobInputsDir: string },
    private readonly writer: DurableWriter,
  ) {
    this.dirs = { generated: dirs.generatedDir, thumbnails: dirs.thumbnailsDir, inputs: dirs.jobInputsDir };
  }

  private path(space: AssetSpace, name: string): string {
    // Inputs are named by their content's hash; the other spaces by asset file names.
    if (space === 'inputs') {
      assertStoredName(space, name);
      return join(this.dirs.inputs, name);
    }
    return pathInside(this.dirs[space], name);
  }

  async create(names: readonly string[], bytes: Buffer): Promise<string | undefined> {
    if (names.length === 0) return undefined;
    const paths = names.map((name) => this.path('generated', name));
    const written = await this.writer.writeFirstFree(paths, bytes, { mode: PRIVATE_FILE, exclusive: true, transfer: true });
    return written === undefined ? undefined : names[paths.indexOf(written)];
  }

  expectWrite(): () => void {
    // A writer thread takes a few tens of milliseconds to start: it starts while the upstream works.
    return this.writer.expect();
  }

  async put(space: AssetSpace, name: string, bytes: Buffer): Promise<boolean> {
    return this.writer.write(this.path(space, name), bytes, { mode: PRIVATE_FILE, exclusive: true });
  }

  async replace(space: AssetSpace, name: string, bytes: Buffer): Promise<void> {
    await writeFileAtomicAsync(this.path(space, name), bytes, PRIVATE_FILE);
  }

  /** The file open for reading, or undefined when it is missing. */
  private opened(space: AssetSpace, name: string): Promise<FileHandle | undefined> {
    return open(this.path(space, name), 'r').catch(() => undefined);
  }

  async read(
    space: AssetSpace,
    name: string,
    options: { readonly maxBytes?: number } = {},
  ): Promise<Buffer | { readonly tooLarge: number } | undefined> {
    const handle = await this.opened(space, name);
    if (!handle) return undefined;
    try {
      const { size } = await handle.stat();
      if (options.maxBytes !== undefined && size > options.maxBytes) return { tooLarge: size };
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  }

  open(space: AssetSpace, name: string): Promise<AssetBody | undefined>;
  open(space: AssetSpace, name: string, range?: ByteRange): Promise<AssetBody | OutsideFile | undefined>;
  async open(space: AssetSpace, name: string, range?: ByteRange): Promise<AssetBody | OutsideFile | undefined> {
    const handle = await this.opened(space, name);
    if (!handle) return undefined;
    try {
      const { size } = await handle.stat();
      const part = range && partOf(range, size);
      if (range && !part) {
        await handle.close();
        return { size, outside: true };
      }
      // A bounded stream ends right after its last byte instead of one more read later, so the
      // response finishes before a client that counted Content-Length bytes moves on. The stream
      // closes the handle when it ends; an empty file needs no stream.
      if (size === 0) {
        await handle.close();
        return { size, stream: Readable.from([]) };
      }
      const { start, end } = part ?? { start: 0, end: size - 1 };
      return { size, ...(part ? { part } : {}), stream: handle.createReadStream({ start, end }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async exists(space: AssetSpace, name: string): Promise<boolean> {
    try {
      return (await stat(this.path(space, name))).isFile();
    } catch {
      return false;
    }
  }

  async remove(space: AssetSpace, name: string): Promise<void> {
    await rm(this.path(space, name), { force: true });
  }

  async names(space: AssetSpace): Promise<string[]> {
    const entries = await readdir(this.dirs[space], { withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => entry.isFile() && !isAtomicTempName(entry.name)).map((entry) => entry.name);
  }

  async stat(space: AssetSpace, name: string): Promise<FileFacts | undefined> {
    try {
      const found = await stat(this.path(space, name));
      return found.isFile() ? { size: found.size, modifiedAt: found.mtimeMs } : undefined;
    } catch {
      return undefined;
    }
  }

  capacity(): Promise<Capacity | undefined> {
    // Every job is checked at submit. A trip to the file system's thread pool there held each of a
    // burst's requests back until all of them had arrived; a reading that showed plenty of room needs none.
    const last = this.capacityReading;
    if (last && last.capacity.freeBytes >= CAPACITY_PLENTY_BYTES) {
      if (performance.now() - last.at >= CAPACITY_FRESH_MS) void this.readCapacityOnce();
      return Promise.resolve(last.capacity);
    }
    return this.readCapacityOnce();
  }

  /** Callers at once share one reading. */
  private readCapacityOnce(): Promise<Capacity | undefined> {
    return (this.capacityRead ??= this.readCapacity().finally(() => (this.capacityRead = undefined)));
  }

  private async readCapacity(): Promise<Capacity | undefined> {
    try {
      const disk = await statfs(this.dirs.generated);
      const capacity = { freeBytes: disk.bavail * disk.bsize, totalBytes: disk.blocks * disk.bsize };
      this.capacityReading = { capacity, at: performance.now() };
      return capacity;
    } catch {
      this.capacityReading = undefined;
      return undefined;
    }
  }

  async usage(space: AssetSpace): Promise<{ bytes: number; files: number }> {
    let bytes = 0;
    let files = 0;
    for (const name of await this.names(space)) {
      const size = await stat(join(this.dirs[space], name)).then(
        (found) => found.size,
        () => undefined,
      );
      if (size === undefined) continue;
      bytes += size;
      files += 1;
    }
    return { bytes, files };
  }

  /** The temp files of interrupted writes: every one not written by this process start (their boot id says so; a reused pid cannot fool it). */
  async removeLeftovers(): Promise<number> {
    let removed = 0;
    for (const dir of Object.values(this.dirs)) {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile() || !isAtomicTempName(entry.name) || isThisBootsTempName(entry.name)) continue;
        await rm(join(dir, entry.name), { force: true });
        removed += 1;
      }
    }
    return removed;
  }
}
