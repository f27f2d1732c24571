import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  'X-Accel-Buffering': 'no',
  Connection: 'keep-alive',
} as const;

/** How a connection ended: the client left, we ended it, or we cut it for not reading. */
export type CloseReason = 'client' | 'server' | 'slow';

/**
 * One hijacked SSE response. Writes never wait: a client whose unsent bytes
 * exceed the budget is cut (it can resume by cursor), so a slow reader costs
 * at most its budget in memory and nothing in time for the others.
 */
export class SseConnection {
  private closed = false;
  private reason: CloseReason = 'client';
  private budget: number;

  private constructor(
    private readonly res: ServerResponse,
    private readonly maxBufferedBytes: number,
    onClose: (reason: CloseReason) => void,
  ) {
    this.budget = maxBufferedBytes;
    // Errors surface as 'close'; without a listener an 'error' event would crash the process.
    res.on('error', () => {});
    res.on('close', () => {
      this.closed = true;
      onClose(this.reason);
    });
    // The client may have left before the route ran; then 'close' has already fired.
    if (res.destroyed) {
      this.closed = true;
      queueMicrotask(() => onClose('client'));
    }
  }

  /** Hijacks the reply, sends the SSE headers and `preamble` (the first bytes, never cut). */
  static open(
    reply: FastifyReply,
    preamble: Buffer | string,
    maxBufferedBytes: number,
    onClose: (reason: CloseReason) => void,
  ): SseConnection {
    reply.hijack();
    const res = reply.raw;
    const connection = new SseConnection(res, maxBufferedBytes, onClose);
    res.writeHead(200, SSE_HEADERS);
    // A replay may be larger than the budget; it is exempt until it has drained.
    if (!res.write(preamble)) {
      connection.budget += res.writableLength;
      res.once('drain', () => (connection.budget = connection.maxBufferedBytes));
    }
    return connection;
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /**
   * Queues bytes; false when the connection is (now) closed. The budget bounds
   * the backlog before this chunk, so one large frame (a partial image) never
   * cuts a client that keeps up; memory stays under budget + one frame.
   */
  send(chunk: Buffer): boolean {
    if (this.closed) return false;
    if (this.res.writableLength > this.budget) {
      this.close('slow');
      return false;
    }
    this.res.write(chunk);
    return true;
  }

  /** Ends the response after everything queued is flushed. */
  finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.reason = 'server';
    this.res.end();
  }

  /** At shutdown: a clean end when nothing is pending, otherwise at once (a stuck client must not hold shutdown). */
  shutdown(): void {
    if (!this.closed && this.res.writableLength === 0) this.finish();
    else if (!this.res.writableFinished) this.close('server');
  }

  private close(reason: CloseReason): void {
    if (!this.closed) this.reason = reason;
    this.closed = true;
    this.res.destroy();
  }
}
