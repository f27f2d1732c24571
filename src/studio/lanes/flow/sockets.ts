import { createHash } from 'node:crypto';
import type { ImageFormat } from '../../api/index.js';
import type { LaneEnv } from '../env.js';
import { UpstreamSocket } from '../../upstream/websocket.js';
import type { LaneJob } from '../types.js';

// One WebSocket per node-graph server, shared by every job the lane has
// there (contract: flow-node-graph-queue §3), held while it has jobs and
// closed a few seconds after the last one. Messages are routed to each
// prompt's watch by `prompt_id`: step progress and previews go straight to
// the job's events; the prompt's end and queue changes wake the job's status
// call, which then reads `/history` (the source of truth) or `/queue`.
// Messages for a prompt not watched yet (the server can be faster than the
// submit's answer) are kept briefly and replayed when its watch starts.

/** Our client id on every server: one per state dir, so a restarted studio hears its prompts again. */
export const flowClientId = (ctx: LaneEnv): string => `svc-${createHash('sha256').update(ctx.paths.home).digest('hex').slice(0, 24)}`;

/** The handshake's budget and the largest message (a preview frame of a large image). */
const CONNECT_TIMEOUT_MS = 5_000;
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** A server without jobs keeps its socket this long, in case the next job comes soon. */
const LINGER_MS = 5_000;
/** A watch its job stopped touching (a job that ended without saying: its deadline) is dropped after this long. */
const WATCH_IDLE_MS = 60_000;
/** Messages kept for prompts without a watch. */
const UNCLAIMED_MAX = 256;

/** One prompt as its job follows it. */
export class PromptWatch {
  started = false;
  /** The socket said the prompt ended (how, `/history` tells). */
  finished = false;
  /** The queue changed since the job last looked at its place. */
  queueChanged = true;
  /** `/history` must be read at the next status call (a fresh watch, a socket that came back). */
  checkHistory = true;
  lastHistoryAt = 0;
  /** The place in the server's queue last told to the job. */
  position: number | undefined;
  /** Consecutive status calls that found the prompt neither in history nor in the queue. */
  absent = 0;
  /** Status calls since the socket said it ended that found no history entry yet. */
  unrecorded = 0;
  touchedAt = Date.now();
  private previews = 0;
  private wake: (() => void) | undefined;

  constructor(
    readonly promptId: string,
    public job: LaneJob,
  ) {}

  /** Resolves when something happened to the prompt, or after `ms`; rejects with the cancel's reason. */
  next(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.finished || this.checkHistory) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.wake = undefined;
      };
      const onAbort = () => {
        done();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        done();
        resolve();
      }, ms);
      this.wake = () => {
        done();
        resolve();
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  notify(): void {
    this.wake?.();
  }

  /** The server runs the prompt: the job hears `rendering` once, whoever noticed first (a message, `/queue`). */
  begin(): void {
    if (this.started) return;
    this.started = true;
    this.job.phase('rendering');
    this.notify();
  }

  preview(bytes: Buffer, format: ImageFormat): void {
    if (!this.started || this.finished) return;
    this.job.partial({ index: this.previews++, b64: () => bytes.toString('base64'), format });
  }
}

interface Message {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** The socket of one server and the prompts watched on it. */
class OriginSocket {
  readonly socket: UpstreamSocket;
  private readonly watches = new Map<string, PromptWatch>();
  private readonly unclaimed: Message[] = [];
  /** Previews carry no prompt id: they belong to the prompt that last reported a node or a step. */
  private current: string | undefined;
  private lingerTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** Messages received (the benchmark reads it). */
  messages = 0;

  constructor(
    readonly origin: string,
    clientId: string,
    private readonly onIdle: () => void,
  ) {
    this.socket = new UpstreamSocket({
      lane: 'flow',
      url: `${origin.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(clientId)}`,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      maxMessageBytes: MAX_MESSAGE_BYTES,
      onMessage: (message) => {
        this.messages += 1;
        if ('text' in message) this.onText(message.text);
        else this.onBinary(message.binary);
      },
      onState: () => {
        // Opened again or dropped: what happened meanwhile is read from /history.
        for (const watch of this.watches.values()) {
          watch.checkHistory = true;
          watch.notify();
        }
      },
    });
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** Starts (or adopts) the watch of a prompt for this job, replaying what came before it. */
  watch(promptId: string, job: LaneJob): PromptWatch {
    clearTimeout(this.lingerTimer);
    this.lingerTimer = undefined;
    void this.socket.open().catch(() => undefined);
    let watch = this.watches.get(promptId);
    if (watch) watch.job = job;
    else {
      watch = new PromptWatch(promptId, job);
      this.watches.set(promptId, watch);
      // Replayed once: what is handed to the watch leaves the buffer.
      const held = this.unclaimed.filter((message) => message.data.prompt_id === promptId);
      this.unclaimed.splice(0, this.unclaimed.length, ...this.unclaimed.filter((message) => message.data.prompt_id !== promptId));
      for (const message of held) this.route(watch, message);
    }
    watch.touchedAt = Date.now();
    this.sweepTimer ??= setInterval(() => this.sweep(), WATCH_IDLE_MS / 2).unref();
    return watch;
  }

  release(promptId: string): void {
    this.watches.delete(promptId);
    if (this.watches.size > 0 || this.lingerTimer) return;
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.lingerTimer = setTimeout(() => this.onIdle(), LINGER_MS);
    this.lingerTimer.unref();
  }

  close(): void {
    clearTimeout(this.lingerTimer);
    clearInterval(this.sweepTimer);
    this.socket.close();
  }

  private sweep(): void {
    const now = Date.now();
    for (const watch of [...this.watches.values()]) if (now - watch.touchedAt > WATCH_IDLE_MS) this.release(watch.promptId);
  }

  private onText(text: string): void {
    let message: Message;
    try {
      const parsed = JSON.parse(text) as { type?: unknown; data?: unknown };
      if (typeof parsed.type !== 'string' || !parsed.data || typeof parsed.data !== 'object') return;
      message = { type: parsed.type, data: parsed.data as Record<string, unknown> };
    } catch {
      return;
    }
    if (message.type === 'status') {
      for (const watch of this.watches.values()) {
        if (watch.started) continue;
        watch.queueChanged = true;
        watch.notify();
      }
      return;
    }
    const promptId = typeof message.data.prompt_id === 'string' ? message.data.prompt_id : undefined;
    if (!promptId) return;
    if (message.type === 'executing' || message.type === 'progress' || message.type === 'execution_start') this.current = promptId;
    const watch = this.watches.get(promptId);
    if (watch) this.route(watch, message);
    else {
      this.unclaimed.push(message);
      if (this.unclaimed.length > UNCLAIMED_MAX) this.unclaimed.shift();
    }
  }

  private route(watch: PromptWatch, { type, data }: Message): void {
    switch (type) {
      case 'execution_start':
      case 'execution_cached':
        watch.begin();
        return;
      case 'executing':
        // Also what a reconnected client hears of its running prompt (§3), so it may be the first news of it.
        watch.begin();
        // `node: null` ends the prompt on servers older than `execution_success` (§3).
        if (data.node === null && !watch.finished) {
          watch.finished = true;
          watch.notify();
        }
        return;
      case 'progress': {
        const value = Number(data.value);
        const max = Number(data.max);
        if (Number.isInteger(value) && Number.isInteger(max))
          watch.job.progress?.({ value, max, ...(typeof data.node === 'string' ? { node: data.node } : {}) });
        return;
      }
      case 'execution_success':
      case 'execution_error':
      case 'execution_interrupted':
        watch.finished = true;
        watch.notify();
        return;
      default:
    }
  }

  /** §3: 4-byte event type (1 = preview), 4-byte image format (1 JPEG, 2 PNG), the image. */
  private onBinary(frame: Buffer): void {
    if (frame.length < 8 || frame.readUInt32BE(0) !== 1 || !this.current) return;
    const format = frame.readUInt32BE(4) === 2 ? 'png' : 'jpeg';
    this.watches.get(this.current)?.preview(frame.subarray(8), format);
  }
}

/** The sockets of one studio, by origin. */
export class FlowSockets {
  private readonly sockets = new Map<string, OriginSocket>();

  constructor(private readonly clientId: string) {}

  of(origin: string): OriginSocket {
    let socket = this.sockets.get(origin);
    if (!socket) {
      const created = new OriginSocket(origin, this.clientId, () => {
        if (this.sockets.get(origin) === created) this.sockets.delete(origin);
        created.close();
      });
      this.sockets.set(origin, created);
      socket = created;
    }
    return socket;
  }

  /** The open sockets' message counts (the benchmark reads them). */
  messages(origin: string): number {
    return this.sockets.get(origin)?.messages ?? 0;
  }

  close(): void {
    for (const socket of this.sockets.values()) socket.close();
    this.sockets.clear();
  }
}

const perStudio = new WeakMap<LaneEnv, FlowSockets>();

/** The studio's flow sockets (made on first use; closed with its app). */
export function flowSockets(ctx: LaneEnv): FlowSockets {
  let sockets = perStudio.get(ctx);
  if (!sockets) perStudio.set(ctx, (sockets = new FlowSockets(flowClientId(ctx))));
  return sockets;
}

/** Closes the studio's flow sockets (the flow routes do it when the app closes). */
export function closeFlowSockets(ctx: LaneEnv): void {
  perStudio.get(ctx)?.close();
  perStudio.delete(ctx);
}
