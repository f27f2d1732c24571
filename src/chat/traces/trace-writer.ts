import { appendFileSync, closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Output lines, dropped once a trace reaches its size cap. */
const DROPPABLE = new Set(['thinking', 'text', 'tool', 'skipped_line']);

/**
 * Appends one run's events to `<dir>/<traceId>.ndjson`. Every event is one
 * whole line in one append, so a crash leaves every earlier line intact (at
 * worst a partial last line, which readers drop).
 *
 * Tracing is best-effort: nothing here throws. The first failure (directory
 * unusable, disk full, no file descriptors) stops tracing for this run only,
 * with one line on stderr; the run itself goes on.
 *
 * A waiting run holds no file descriptor: until `hold()` (the run starts) each
 * line is appended with its own open/close; from then on the file stays open
 * until `close()`.
 */
export class TraceWriter {
  readonly path: string;
  private fd: number | undefined;
  private held = false;
  private failed = false;
  private dirReady = false;
  private bytes = 0;
  private capped = false;

  constructor(
    private readonly dir: string,
    readonly traceId: string,
    /** Past this size the run's output lines are dropped (its lifecycle lines are still written). */
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {
    this.path = join(dir, `${traceId}.ndjson`);
  }

  /** Keeps the file open from the next line on (the run is producing events now). */
  hold(): void {
    this.held = true;
  }

  /** Writes `{ts, traceId, type, ...fields}`. */
  write(type: string, fields: Readonly<Record<string, unknown>> = {}): void {
    if (this.failed) return;
    try {
      let line = Buffer.from(`${JSON.stringify({ ts: new Date().toISOString(), traceId: this.traceId, type, ...fields })}\n`);
      if (DROPPABLE.has(type) && this.bytes + line.length > this.maxBytes) {
        // One note where the output stops; the run's end (stop, exit, done) is still written.
        if (this.capped) return;
        this.capped = true;
        line = Buffer.from(
          `${JSON.stringify({ ts: new Date().toISOString(), traceId: this.traceId, type: 'truncated', maxBytes: this.maxBytes })}\n`,
        );
      }
      this.bytes += line.length;
      if (!this.held) {
        this.prepareDir();
        appendFileSync(this.path, line, { mode: 0o600 });
        return;
      }
      if (this.fd === undefined) {
        this.prepareDir();
        this.fd = openSync(this.path, 'a', 0o600);
      }
      let offset = 0;
      while (offset < line.length) offset += writeSync(this.fd, line, offset);
    } catch (error) {
      this.failed = true;
      this.close();
      process.stderr.write(`svc-chat: trace ${this.traceId} stopped: ${(error as Error).message}\n`);
    }
  }

  close(): void {
    this.held = false;
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      closeSync(fd);
    } catch {
      // Nothing left to do for a descriptor that will not close.
    }
  }

  /** The directory may have been removed since the server started; recreate it once per writer. */
  private prepareDir(): void {
    if (this.dirReady) return;
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.dirReady = true;
  }
}
