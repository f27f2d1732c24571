import type { FastifyReply } from 'fastify';

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson; charset=utf-8';

/**
 * An NDJSON response: one JSON object per line, each written (and so flushed)
 * as it happens. A client that stops reading is cut once more than
 * `maxBufferedBytes` wait for it, so it costs at most that (plus one line) in
 * memory; being cut is a client leaving (see `onClientClose`).
 */
export class NdjsonStream {
  private ended = false;
  private readonly closeListeners: Array<() => void> = [];

  constructor(
    private readonly reply: FastifyReply,
    private readonly maxBufferedBytes: number,
    headers: Readonly<Record<string, string>> = {},
  ) {
    // The route writes the body itself, possibly for minutes.
    reply.hijack();
    const res = reply.raw;
    res.on('error', () => {});
    res.on('close', () => {
      const early = !this.ended;
      this.ended = true;
      if (early) for (const listener of this.closeListeners) listener();
    });
    res.writeHead(200, {
      'Content-Type': NDJSON_CONTENT_TYPE,
      'Cache-Control': 'no-cache',
      'X-Accel-Buffering': 'no',
      'X-Content-Type-Options': 'nosniff',
      ...headers,
    });
    // The headers go now: a client learns where its prompt went before the first line (which may wait in the queue).
    res.flushHeaders();
    // Small lines are sent as they are written, not held back by Nagle.
    res.socket?.setNoDelay(true);
  }

  get open(): boolean {
    return !this.ended && !this.reply.raw.destroyed;
  }

  write(line: object): void {
    if (!this.open) return;
    const res = this.reply.raw;
    res.write(`${JSON.stringify(line)}\n`);
    // Destroying fires 'close', which tells the close listeners (the run detaches this client).
    if (res.writableLength > this.maxBufferedBytes) res.destroy();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.reply.raw.end();
  }

  /** The client went away before the stream ended. */
  onClientClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }
}
