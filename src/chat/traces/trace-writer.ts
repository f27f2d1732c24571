import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Appends one run's events to `<dir>/<traceId>.ndjson`. The file is opened for
 * append and every event is one whole line in one write, so a crash leaves
 * every earlier line intact (at worst a partial last line, which readers drop).
 */
export class TraceWriter {
  readonly path: string;
  private fd: number | undefined;
  private failed = false;

  constructor(
    dir: string,
    readonly traceId: string,
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.path = join(dir, `${traceId}.ndjson`);
    this.fd = openSync(this.path, 'a', 0o600);
  }

  /** Writes `{ts, traceId, type, ...fields}`. A failing disk never fails the run: tracing stops instead. */
  write(type: string, fields: Readonly<Record<string, unknown>> = {}): void {
    if (this.fd === undefined || this.failed) return;
    const line = Buffer.from(`${JSON.stringify({ ts: new Date().toISOString(), traceId: this.traceId, type, ...fields })}\n`);
    try {
      let offset = 0;
      while (offset < line.length) offset += writeSync(this.fd, line, offset);
    } catch (error) {
      this.failed = true;
      process.stderr.write(`svc-chat: trace ${this.traceId} stopped: ${(error as Error).message}\n`);
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
