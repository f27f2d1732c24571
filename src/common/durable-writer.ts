import { Worker } from 'node:worker_threads';
import { atomicTempPath } from './atomic-file.js';

// Atomic, durable file writes on one worker thread. The same steps as
// writeFileAtomic (temp sibling, write, fsync, rename, fsync of the folder),
// but done in one hop: through libuv's pool each of those eight system calls
// is a round trip of its own, and on a busy machine each waits its turn
// behind thumbnails. Here the whole write costs one message each way, and
// the bytes move to the thread without a copy when the caller gives them up.
//
// The worker starts on first use (or `warm()`), holds the process open only
// while a write is pending, and exits after a minute without writes: an idle
// studio keeps no thread for it.

const IDLE_EXIT_MS = 60_000;

/** The thread only passes bytes through: a small heap is enough. */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 32 };

// Plain CommonJS, run with `eval`: no file to locate next to a bundle.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const { dirname } = require('node:path');
function syncClose(fd) { try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); } }
// The bytes go back with the answer (moved, not copied): the main thread, whose heap churns,
// frees them at its next collection, where this idle thread might hold them for long.
const answer = (reply, data) => parentPort.postMessage({ ...reply, data }, data.buffer instanceof ArrayBuffer && data.buffer.byteLength ? [data.buffer] : []);
parentPort.on('message', ({ id, paths, temps, data, mode, exclusive }) => {
  const index = exclusive ? paths.findIndex((path) => !fs.existsSync(path)) : 0;
  if (index === -1) return answer({ id, index }, data);
  const path = paths[index];
  const temp = temps[index];
  try {
    let fd;
    try {
      fd = fs.openSync(temp, 'wx', mode);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
      // A private file's new folders are private too.
      fs.mkdirSync(dirname(path), { recursive: true, mode: mode & 0o077 ? 0o755 : 0o700 });
      fd = fs.openSync(temp, 'wx', mode);
    }
    try { fs.writeFileSync(fd, data); } catch (error) { fs.closeSync(fd); throw error; }
    syncClose(fd);
    fs.renameSync(temp, path);
    syncClose(fs.openSync(dirname(path), 'r'));
    answer({ id, index }, data);
  } catch (error) {
    try { fs.rmSync(temp, { force: true }); } catch {}
    answer({ id, error: { message: error.message, code: error.code } }, data);
  }
});
`;

interface Reply {
  id: number;
  index?: number;
  error?: { message: string; code?: string };
}

interface Pending {
  readonly done: Promise<number>;
  resolve(index: number): void;
  reject(error: Error): void;
}

export interface WriteOptions {
  /** The file's mode (default 0644). */
  readonly mode?: number;
  /** Never replace a file: a path that exists is skipped. */
  readonly exclusive?: boolean;
  /**
   * Move the bytes to the writer's thread instead of copying them (the caller
   * gives `data` up: it is empty afterwards). Only when `data` spans its whole
   * buffer; otherwise they are copied.
   */
  readonly transfer?: boolean;
}

/** Whether the bytes can be moved: a view over the whole of its own (not shared) buffer. */
const movable = (data: Uint8Array): boolean =>
  data.buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;

export class DurableWriter {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  /**
   * Writes `data` to `path` so that readers see the whole file or none, and a
   * crash after the promise settles keeps it. With `exclusive`, an existing
   * file is left alone and the answer is false.
   */
  async write(path: string, data: Uint8Array, options: WriteOptions = {}): Promise<boolean> {
    return (await this.writeFirstFree([path], data, options)) !== undefined;
  }

  /**
   * Writes `data` under the first of `paths` that has no file yet (one hop for
   * all of them, so the bytes can be moved once). Returns the path written, or
   * undefined when every one is taken.
   */
  async writeFirstFree(paths: readonly string[], data: Uint8Array, options: WriteOptions = {}): Promise<string | undefined> {
    if (this.closed) throw new Error('The file writer is closed.');
    const exclusive = options.exclusive === true || paths.length > 1;
    const worker = this.started();
    const id = this.nextId++;
    let settle!: Pick<Pending, 'resolve' | 'reject'>;
    const done = new Promise<number>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(id, { done, ...settle });
    if (this.pending.size === 1) worker.ref();
    clearTimeout(this.idleTimer);
    try {
      const message = { id, paths, temps: paths.map(atomicTempPath), data, mode: options.mode ?? 0o644, exclusive };
      worker.postMessage(message, options.transfer && movable(data) ? [data.buffer as ArrayBuffer] : []);
    } catch (error) {
      this.settle({ id, error: { message: (error as Error).message } });
    }
    const index = await done;
    return index === -1 ? undefined : paths[index];
  }

  /** Starts the thread ahead of a write that is coming (it takes a few tens of milliseconds). */
  warm(): void {
    if (!this.closed) this.started();
  }

  /** Waits for the writes under way, then stops the thread. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.pending.values()].map((entry) => entry.done));
    await this.stop();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    // No inherited flags: a parent's loader or `--input-type=module` would not read this CommonJS.
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], resourceLimits: RESOURCE_LIMITS });
    worker.unref();
    worker.on('message', (reply: Reply) => this.settle(reply));
    // A thread that dies takes its writes with it: they fail, and the next write starts a new one.
    const lost = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      clearTimeout(this.idleTimer);
      for (const entry of this.pending.values()) entry.reject(error);
      this.pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`The file writer thread exited (code ${code}).`)));
    this.worker = worker;
    this.idleTimer = setTimeout(() => void this.stop(), IDLE_EXIT_MS).unref();
    return worker;
  }

  private settle(reply: Reply): void {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    this.pending.delete(reply.id);
    if (reply.error) entry.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
    else entry.resolve(reply.index ?? -1);
    if (this.pending.size === 0 && this.worker) {
      this.worker.unref();
      this.idleTimer = setTimeout(() => void this.stop(), IDLE_EXIT_MS).unref();
    }
  }

  private async stop(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.pending.size > 0) return;
    this.worker = undefined;
    clearTimeout(this.idleTimer);
    await worker.terminate();
  }
}
