import type { ServerResponse } from 'node:http';
import type { FaultSpec } from './faults.js';

// The answer side of a simulator request: JSON, raw bodies and SSE streams,
// with the active fault (cut after N events or bytes, malformed output) applied
// at the single place where bytes are written.

/** How a request ended, as the request log records it. */
export type RequestOutcome = 'open' | 'completed' | 'client-aborted' | 'cut-by-fault' | 'cut-by-simulator';

export type HeaderMap = Readonly<Record<string, string | number>>;

/** The second event: the stream has visibly started when the malformed one arrives. */
const DEFAULT_MALFORMED_EVENT = 1;

export class SimResponse {
  /** Status sent, once headers are out. */
  status: number | undefined;
  streamed = false;
  eventsSent = 0;
  bytesSent = 0;
  outcome: RequestOutcome = 'open';
  private readonly extraHeaders = new Map<string, string | number>();
  private readonly malformedEvent: number | undefined;
  private quirks = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly fault: FaultSpec | undefined,
    /** Told when an SSE answer starts (the harness counts open streams). */
    private readonly onStreamStart: () => void = () => undefined,
  ) {
    for (const [name, value] of Object.entries(fault?.headers ?? {})) this.extraHeaders.set(name.toLowerCase(), value);
    const malformed = fault?.malformed;
    this.malformedEvent = malformed === true ? DEFAULT_MALFORMED_EVENT : typeof malformed === 'number' ? malformed : undefined;
    res.on('close', () => {
      if (this.outcome === 'open') this.outcome = res.writableFinished ? 'completed' : 'client-aborted';
    });
  }

  /** True once nothing more can be delivered (client gone, connection cut, or answer finished). */
  get closed(): boolean {
    return this.outcome !== 'open' || this.res.destroyed || this.res.writableEnded;
  }

  get headersSent(): boolean {
    return this.res.headersSent;
  }

  /** A header added to whatever answer this request gets (fault headers still win). */
  setHeader(name: string, value: string | number): void {
    const key = name.toLowerCase();
    if (!this.fault?.headers || !Object.keys(this.fault.headers).some((faultName) => faultName.toLowerCase() === key)) {
      this.extraHeaders.set(key, value);
    }
  }

  async json(status: number, body: unknown, headers: HeaderMap = {}): Promise<void> {
    let payload = Buffer.from(JSON.stringify(body));
    if (this.fault?.malformed !== undefined && this.fault.malformed !== false)
      payload = payload.subarray(0, Math.floor(payload.length / 2));
    await this.send(status, payload, 'application/json', headers);
  }

  async send(status: number, body: Buffer | string, contentType: string, headers: HeaderMap = {}): Promise<void> {
    if (this.closed || this.cutBeforeHeaders()) return;
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    this.writeHead(status, { 'content-type': contentType, 'content-length': payload.length, ...headers });
    if (await this.write(payload)) this.finish();
  }

  /**
   * Starts an SSE answer; events follow with `event()`/`data()`. `quirks` exercises client
   * parsers (SSE contract §5): a BOM, a comment and a `retry:` line first, CRLF line endings,
   * comment lines between events, each event split over two writes, and a last event without
   * its blank line (which parsers must drop).
   */
  startStream(status = 200, headers: HeaderMap = {}, options: { quirks?: boolean } = {}): boolean {
    if (this.closed || this.cutBeforeHeaders()) return false;
    this.streamed = true;
    this.onStreamStart();
    this.writeHead(status, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    this.res.flushHeaders();
    if (options.quirks) {
      this.quirks = true;
      void this.write(Buffer.from('\uFEFF: simulated wire quirks\r\nretry: 3000\r\n\r\n'));
    }
    return true;
  }

  /** One `event:` + `data:` frame (data is JSON on one line). False once the stream is gone. */
  event(type: string | undefined, data: unknown): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const limit = this.fault?.disconnectAfterEvents;
    if (limit !== undefined && this.eventsSent >= limit) {
      this.cut('cut-by-fault');
      return Promise.resolve(false);
    }
    let json = typeof data === 'string' ? data : JSON.stringify(data);
    if (this.eventsSent === this.malformedEvent) json = json.slice(0, Math.max(1, Math.floor(json.length / 2)));
    this.eventsSent += 1;
    if (this.quirks) return this.writeQuirky(type, json);
    return this.write(Buffer.from(type === undefined ? `data: ${json}\n\n` : `event: ${type}\ndata: ${json}\n\n`));
  }

  private async writeQuirky(type: string | undefined, json: string): Promise<boolean> {
    const comment = this.eventsSent % 2 === 0 ? ': keep-alive\r\n\r\n' : '';
    const frame = `${comment}${type === undefined ? '' : `event: ${type}\r\n`}data: ${json}\r\n\r\n`;
    // Split inside the data line.
    const middle = frame.length - Math.ceil(json.length / 2) - 4;
    if (!(await this.write(Buffer.from(frame.slice(0, middle))))) return false;
    // A separate turn of the event loop makes a separate TCP chunk in practice.
    await new Promise((resolve) => setImmediate(resolve));
    return this.write(Buffer.from(frame.slice(middle)));
  }

  /** A data-only frame (no `event:` line), for streams that use plain `data:` events. */
  data(data: unknown): Promise<boolean> {
    return this.event(undefined, data);
  }

  /** An SSE comment line (keep-alive). Not counted as an event. */
  comment(text = ''): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    return this.write(Buffer.from(`: ${text}\n\n`));
  }

  /** Ends the stream normally. */
  endStream(): void {
    if (this.closed) return;
    if (this.quirks && this.streamed) this.res.write('event: sim.trailing\r\ndata: {"dropped":true}');
    this.finish();
  }

  /** Drops the connection without finishing the answer (a mid-stream disconnect). */
  cut(outcome: 'cut-by-fault' | 'cut-by-simulator' = 'cut-by-simulator'): void {
    if (this.outcome === 'open') this.outcome = outcome;
    const socket = this.res.socket;
    if (!socket) return; // already gone
    // End the TCP connection after what was written so far is flushed: the client gets
    // every delivered byte, then EOF inside an unfinished body (a cut, not a clean end).
    socket.end();
    // If the peer never closes its side, drop the socket anyway.
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  private finish(): void {
    this.res.end();
  }

  private writeHead(status: number, headers: HeaderMap): void {
    this.status = status;
    const merged: Record<string, string | number> = {};
    for (const [name, value] of Object.entries(headers)) merged[name.toLowerCase()] = value;
    for (const [name, value] of this.extraHeaders) merged[name] = value;
    this.res.writeHead(status, merged);
  }

  /** `disconnectAfterBytes: 0` resets the connection before the status line. */
  private cutBeforeHeaders(): boolean {
    if (this.fault?.disconnectAfterBytes !== 0) return false;
    this.cut('cut-by-fault');
    return true;
  }

  /** Writes body bytes, honouring backpressure and the byte-count fault. */
  private async write(chunk: Buffer): Promise<boolean> {
    const limit = this.fault?.disconnectAfterBytes;
    if (limit !== undefined && this.bytesSent + chunk.length >= limit) {
      const head = chunk.subarray(0, limit - this.bytesSent);
      this.bytesSent += head.length;
      // Let the delivered bytes reach the socket before cutting, so the client really gets N bytes.
      await new Promise<void>((resolve) => (head.length ? this.res.write(head, () => resolve()) : resolve()));
      this.cut('cut-by-fault');
      return false;
    }
    this.bytesSent += chunk.length;
    if (this.res.write(chunk)) return !this.closed;
    await new Promise<void>((resolve) => {
      const done = () => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
    return !this.closed;
  }
}
