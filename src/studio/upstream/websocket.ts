import type { RawData, WebSocket } from 'ws';
import { maskCredentials } from '../../common/secrets.js';
import { UpstreamError } from './upstream-error.js';

// The upstream WebSocket transport, beside the HTTP client and under its
// rules: a time budget for the handshake, a size limit per message (a larger
// one is a protocol failure and closes the connection), no redirects, typed
// UpstreamErrors with the credentials sent masked out of what they say, and a
// heartbeat (a ping every 15 s; no pong within 10 s and the connection is
// dead). A dropped connection reconnects by itself with back-off (250 ms
// doubling to 5 s, ±25 % jitter) until it is closed; the owner hears every
// state change, so it can poll meanwhile and catch up after.

export interface UpstreamSocketOptions {
  /** Who connects (named in errors). */
  readonly lane: string;
  /** `ws:` or `wss:` URL. */
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The credential(s) sent; masked in anything reported. */
  readonly credentials?: readonly (string | undefined)[];
  /** Budget of one handshake. */
  readonly connectTimeoutMs: number;
  /** Largest message accepted. */
  readonly maxMessageBytes: number;
  /** A text frame (UTF-8) or a binary one. */
  readonly onMessage: (message: { readonly text: string } | { readonly binary: Buffer }) => void;
  /** The connection opened (again), or dropped with why. */
  readonly onState?: (state: 'open' | 'down', error?: UpstreamError) => void;
  /** Back-off of reconnects (ms): first wait and cap. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
}

const PING_EVERY_MS = 15_000;
const PONG_WITHIN_MS = 10_000;
const DEFAULT_BACKOFF = { initialMs: 250, maxMs: 5_000 };

const jitter = (ms: number) => Math.round(ms * (0.75 + Math.random() * 0.5));

/** ws loads with the first socket (a flow job), not at start. */
let ws: Promise<typeof import('ws')> | undefined;
const loadWs = () => (ws ??= import('ws'));

export class UpstreamSocket {
  private socket: WebSocket | undefined;
  private closed = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private pongTimer: NodeJS.Timeout | undefined;
  /** The handshake under way, if any. */
  private attempt$: Promise<void> | undefined;
  /** A reconnect is scheduled: until it runs, `open` does not jump the back-off. */
  private retryPending = false;
  private lastFailure: UpstreamError | undefined;
  private isOpen = false;

  constructor(private readonly options: UpstreamSocketOptions) {}

  get connected(): boolean {
    return this.isOpen;
  }

  /**
   * Connects and keeps the connection, reconnecting after drops until `close`. Settles when the
   * socket is open: at once when it is, with the handshake under way when there is one; while a
   * reconnect waits out its back-off it rejects with the last failure instead of jumping it.
   */
  open(): Promise<void> {
    if (this.isOpen) return Promise.resolve();
    if (this.attempt$) return this.attempt$;
    if (this.closed || this.retryPending) return Promise.reject(this.lastFailure ?? this.error('The connection was closed.', 'network'));
    const attempt = this.connect().finally(() => {
      if (this.attempt$ === attempt) this.attempt$ = undefined;
    });
    this.attempt$ = attempt;
    return attempt;
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.stopHeartbeat();
    this.socket?.terminate();
    this.socket = undefined;
    this.isOpen = false;
  }

  private error(message: string, failure: 'network' | 'timeout' | 'protocol', cause?: unknown): UpstreamError {
    const text = maskCredentials(message, this.options.credentials);
    return new UpstreamError(text, {
      lane: this.options.lane,
      failure,
      stage: failure === 'protocol' ? 'stream' : 'connect',
      ...(failure === 'timeout' ? { timeoutMs: this.options.connectTimeoutMs } : {}),
      cause,
    });
  }

  private async connect(): Promise<void> {
    const { WebSocket } = await loadWs();
    return new Promise<void>((resolve, reject) => {
      if (this.closed) {
        reject(this.error('The connection was closed.', 'network'));
        return;
      }
      const { url, connectTimeoutMs, maxMessageBytes } = this.options;
      let settled = false;
      const socket = new WebSocket(url, {
        headers: { ...this.options.headers },
        handshakeTimeout: connectTimeoutMs,
        maxPayload: maxMessageBytes,
        followRedirects: false,
        perMessageDeflate: false,
      });
      this.socket = socket;
      socket.on('open', () => {
        settled = true;
        this.attempt = 0;
        this.isOpen = true;
        this.startHeartbeat(socket);
        this.options.onState?.('open');
        resolve();
      });
      socket.on('message', (data: RawData, isBinary: boolean) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
        this.options.onMessage(isBinary ? { binary: bytes } : { text: bytes.toString('utf8') });
      });
      socket.on('pong', () => clearTimeout(this.pongTimer));
      let failure: UpstreamError | undefined;
      socket.on('error', (error: Error & { code?: string }) => {
        const tooLarge = error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';
        const timedOut = /timed out/i.test(error.message);
        failure = tooLarge
          ? this.error(`The upstream sent a WebSocket message over ${maxMessageBytes} bytes.`, 'protocol', error)
          : timedOut
            ? this.error(`The upstream WebSocket did not open within ${Math.round(connectTimeoutMs / 1000)} s.`, 'timeout', error)
            : this.error(`Could not keep the upstream WebSocket (${error.code ?? error.message}).`, 'network', error);
      });
      socket.on('close', (code: number) => {
        if (this.socket === socket) this.socket = undefined;
        this.stopHeartbeat();
        const wasOpen = this.isOpen;
        this.isOpen = false;
        const why = failure ?? this.error(`The upstream WebSocket closed (${code}).`, 'network');
        this.lastFailure = why;
        if (!settled) {
          settled = true;
          reject(why);
        }
        if (wasOpen || !this.closed) this.options.onState?.('down', why);
        this.scheduleReconnect();
      });
    });
  }

  private scheduleReconnect(): void {
    if (this.closed) return;
    const backoff = this.options.backoff ?? DEFAULT_BACKOFF;
    const wait = jitter(Math.min(backoff.maxMs, backoff.initialMs * 2 ** this.attempt));
    this.attempt += 1;
    clearTimeout(this.retryTimer);
    this.retryPending = true;
    this.retryTimer = setTimeout(() => {
      this.retryPending = false;
      this.open().catch(() => undefined);
    }, wait);
  }

  private startHeartbeat(socket: WebSocket): void {
    this.stopHeartbeat();
    this.pingTimer = setInterval(() => {
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => socket.terminate(), PONG_WITHIN_MS);
      socket.ping();
    }, PING_EVERY_MS);
    this.pingTimer.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }
}
