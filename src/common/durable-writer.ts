import { Worker } from 'node:worker_threads';
import { atomicTempPath } from './atomic-file.js';

// Atomic, durable file writes on worker threads. The same steps as
// writeFileAtomic (temp sibling, write, fsync, rename, fsync of the folder),
// but done in one hop: through libuv's pool each of those eight system calls
// is a round trip of its own, and on a busy machine each waits its turn
// behind thumbnails. Here the whole write costs one message each way, and
// the bytes move to the thread without a copy when the caller gives them up.
//
// A write that arrives while every thread is busy starts another, up to
// WRITER_THREADS: fsyncs made at the same time share the file system's
// journal commits (32 images written one after another took 197 ms here, on
// four threads 25-30 ms). A name is claimed with link(), which fails on an
// existing file, so two threads never take the same name.
//
// Threads start on first use, or ahead of it: `expect()` says a write is
// coming (a job started that will save an image), and one thread is started
// for each write expected at once, up to WRITER_THREADS, while the upstream
// works. A burst's images then find their threads running: started when
// they arrive, each took tens of milliseconds of a busy core and held the
// burst's last writes (the slowest save of 32 at once went from about 170 ms
// to 30). Threads hold the process open only while a write is pending, and
// exit after a minute without writes (those started for a burst after thirty
// seconds), never while writes they were started for are still expected: an
// idle studio keeps no thread for them.

const IDLE_EXIT_MS = 60_000;
/**
 * A thread started for a burst goes sooner: each holds a V8 isolate (a few MiB) while it lives.
 * Not too soon: bursts a few seconds apart (a batch script, a benchmark's rounds) restarted three
 * threads each time after five seconds, tens of milliseconds of a core each while the burst's
 * requests arrive (32 at once, interleaved A/B rounds: 1–2% more throughput at thirty).
 */
const EXTRA_IDLE_EXIT_MS = 30_000;
/** Most threads writing at once (libuv's pool has four too). */
export const WRITER_THREADS = 4;

/** A thread only passes bytes through: a small heap is enough. */
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
// The first of paths with no file yet, claimed by a hard link of the written temp file
// (atomic: it fails on an existing name, whoever made it); -1 when every one is taken.
function claim(temp, paths) {
  for (let index = 0; index < paths.length; index += 1) {
    try {
      fs.linkSync(temp, paths[index]);
      return index;
    } catch (error) {
      if (error.code === 'EEXIST') continue;
      // A file system without hard links: the check and the rename, as one thread alone can.
      if (error.code === 'EPERM' || error.code === 'ENOTSUP' || error.code === 'ENOSYS') {
        const free = paths.findIndex((path) => !fs.existsSync(path));
        if (free !== -1) fs.renameSync(temp, paths[free]);
        return free;
      }
      throw error;
    }
  }
  return -1;
}
parentPort.on('message', ({ id, paths, temp, data, mode, exclusive }) => {
  if (exclusive && paths.every((path) => fs.existsSync(path))) return answer({ id, index: -1 }, data);
  try {
    let fd;
    try {
      fd = fs.openSync(temp, 'wx', mode);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
      // A private file's new folders are private too.
      fs.mkdirSync(dirname(paths[0]), { recursive: true, mode: mode & 0o077 ? 0o755 : 0o700 });
      fd = fs.openSync(temp, 'wx', mode);
    }
    try { fs.writeFileSync(fd, data); } catch (error) { fs.closeSync(fd); throw error; }
    syncClose(fd);
    let index = 0;
    if (exclusive) {
      index = claim(temp, paths);
      fs.rmSync(temp, { force: true });
    } else {
      fs.renameSync(temp, paths[0]);
    }
    if (index !== -1) syncClose(fs.openSync(dirname(paths[index]), 'r'));
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

/** One writer thread and the writes it has been given. */
interface Thread {
  readonly worker: Worker;
  readonly pending: Set<number>;
  /** Started while another ran: for a burst. */
  readonly extra: boolean;
  idleTimer?: NodeJS.Timeout;
}

export class DurableWriter {
  private readonly threads = new Set<Thread>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;
  /** Writes said to be coming (expect) and not given yet. */
  private expected = 0;

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
   * undefined when every one is taken. The paths share one folder.
   */
  async writeFirstFree(paths: readonly string[], data: Uint8Array, options: WriteOptions = {}): Promise<string | undefined> {
    if (this.closed) throw new Error('The file writer is closed.');
    const exclusive = options.exclusive === true || paths.length > 1;
    const thread = this.pick();
    const id = this.nextId++;
    let settle!: Pick<Pending, 'resolve' | 'reject'>;
    const done = new Promise<number>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(id, { done, ...settle });
    if (thread.pending.size === 0) thread.worker.ref();
    thread.pending.add(id);
    clearTimeout(thread.idleTimer);
    try {
      const message = { id, paths, temp: atomicTempPath(paths[0]), data, mode: options.mode ?? 0o644, exclusive };
      thread.worker.postMessage(message, options.transfer && movable(data) ? [data.buffer as ArrayBuffer] : []);
    } catch (error) {
      this.settle(thread, { id, error: { message: (error as Error).message } });
    }
    const index = await done;
    return index === -1 ? undefined : paths[index];
  }

  /**
   * A write is coming: a thread is started for it unless one is there for
   * every write expected at once (up to WRITER_THREADS). A thread takes a few
   * tens of milliseconds to start. Call the returned function once the write
   * has been given, or will not be.
   */
  expect(): () => void {
    if (this.closed) return () => {};
    this.expected += 1;
    while (this.threads.size < Math.min(WRITER_THREADS, this.expected)) this.start();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.expected -= 1;
    };
  }

  /** Threads running now (tests, status). */
  get threadCount(): number {
    return this.threads.size;
  }

  /** Waits for the writes under way, then stops the threads. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.pending.values()].map((entry) => entry.done));
    await Promise.all([...this.threads].map((thread) => this.stop(thread)));
  }

  /** An idle thread, else a new one while there is room, else the least busy. */
  private pick(): Thread {
    let least: Thread | undefined;
    for (const thread of this.threads) {
      if (thread.pending.size === 0) return thread;
      if (!least || thread.pending.size < least.pending.size) least = thread;
    }
    return least && this.threads.size >= WRITER_THREADS ? least : this.start();
  }

  private start(): Thread {
    // No inherited flags: a parent's loader or `--input-type=module` would not read this CommonJS.
    const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], resourceLimits: RESOURCE_LIMITS });
    worker.unref();
    const thread: Thread = { worker, pending: new Set(), extra: this.threads.size > 0 };
    worker.on('message', (reply: Reply) => this.settle(thread, reply));
    // A thread that dies takes its writes with it: they fail, and the next write starts a new one.
    const lost = (error: Error) => {
      if (!this.threads.delete(thread)) return;
      clearTimeout(thread.idleTimer);
      for (const id of thread.pending) this.pending.get(id)?.reject(error);
      for (const id of thread.pending) this.pending.delete(id);
      thread.pending.clear();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`The file writer thread exited (code ${code}).`)));
    this.threads.add(thread);
    this.idleAfter(thread);
    return thread;
  }

  private idleAfter(thread: Thread): void {
    thread.idleTimer = setTimeout(() => void this.stop(thread), thread.extra ? EXTRA_IDLE_EXIT_MS : IDLE_EXIT_MS).unref();
  }

  private settle(thread: Thread, reply: Reply): void {
    const entry = this.pending.get(reply.id);
    if (!entry) return;
    this.pending.delete(reply.id);
    thread.pending.delete(reply.id);
    if (reply.error) entry.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
    else entry.resolve(reply.index ?? -1);
    if (thread.pending.size === 0 && this.threads.has(thread)) {
      thread.worker.unref();
      this.idleAfter(thread);
    }
  }

  private async stop(thread: Thread): Promise<void> {
    if (!this.threads.has(thread) || thread.pending.size > 0) return;
    // Kept for the writes still expected (an upstream slower than the idle time).
    if (!this.closed && this.threads.size <= this.expected) return this.idleAfter(thread);
    this.threads.delete(thread);
    clearTimeout(thread.idleTimer);
    await thread.worker.terminate();
  }
}
