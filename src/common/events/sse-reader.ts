// Server-sent events read as bytes, in one pass: lines are found with
// Buffer.indexOf (memchr), a line inside one chunk is a view of it (no copy),
// a line split across chunks is joined once when its end arrives, and an
// event's data stays bytes until its reader decodes it. An upstream image
// event (hundreds of KB of base64 on one line) costs no string growth across
// chunks and no decode its reader does not ask for.
//
// Parsing follows the WHATWG event-stream rules: UTF-8, a leading BOM
// dropped, CR, LF and CRLF line ends (a CRLF split across chunks too),
// comments, `data` lines joined with LF, `id` without NUL, numeric `retry`,
// other fields ignored. Bytes after the last blank line are an incomplete
// event and are dropped.

/** One event, its data as bytes. `id` and `event` are present only when the event set them. */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data: Buffer;
}

/** An event (or one line) longer than the reader's `maxEventBytes`: the rest of the stream is not read. */
export class SseEventTooLarge extends Error {
  constructor(readonly maxEventBytes: number) {
    super(`An event of the stream is larger than ${maxEventBytes} bytes.`);
    this.name = 'SseEventTooLarge';
  }
}

export interface SseHooks {
  /** A `retry:` field (milliseconds). */
  onRetry?: (milliseconds: number) => void;
  /**
   * A comment line (e.g. the heartbeat `ping`). `inEvent`: data lines of an event not yet ended are
   * held; a comment then says nothing about that event, so a reader's liveness must not count it.
   */
  onComment?: (text: string, inEvent: boolean) => void;
}

export interface SseReadOptions extends SseHooks {
  /** Most bytes one event (its data lines together, or any one line) may take; past it SseEventTooLarge is thrown. Default: no bound. */
  maxEventBytes?: number;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const LF_BYTE = Buffer.from([LF]);

const asBuffer = (chunk: Uint8Array): Buffer =>
  Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);

async function* chunksOf(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (!('getReader' in body)) {
    yield* body;
    return;
  }
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    finished = true;
  } finally {
    // The consumer stopped early: release the connection.
    if (!finished) await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}

/** The event-stream state between lines: the event being built. */
class EventBuilder {
  private data: Buffer[] = [];
  private dataBytes = 0;
  private id?: string;
  private event?: string;
  private first = true;

  constructor(private readonly hooks: SseReadOptions) {}

  /** One line (without its end); a frame when the line is blank and data was given. */
  line(line: Buffer): SseFrame | undefined {
    if (this.first) {
      this.first = false;
      if (line.length >= 3 && line[0] === BOM[0] && line[1] === BOM[1] && line[2] === BOM[2]) line = line.subarray(3);
    }
    if (line.length === 0) return this.dispatch();
    const colon = line.indexOf(COLON);
    if (colon === 0) {
      this.hooks.onComment?.(line.toString('utf8', line[1] === SPACE ? 2 : 1), this.data.length > 0);
      return undefined;
    }
    const nameEnd = colon === -1 ? line.length : colon;
    const valueStart = colon === -1 ? line.length : line[colon + 1] === SPACE ? colon + 2 : colon + 1;
    const value = line.subarray(valueStart);
    switch (line.toString('latin1', 0, nameEnd)) {
      case 'data':
        this.dataBytes += value.length;
        if (this.dataBytes > (this.hooks.maxEventBytes ?? Infinity)) throw new SseEventTooLarge(this.hooks.maxEventBytes as number);
        this.data.push(value);
        break;
      case 'event':
        this.event = value.toString('utf8') || undefined;
        break;
      case 'id':
        if (!value.includes(0)) this.id = value.toString('utf8');
        break;
      case 'retry': {
        const text = value.toString('latin1');
        if (/^\d+$/.test(text)) this.hooks.onRetry?.(Number(text));
        break;
      }
    }
    return undefined;
  }

  private dispatch(): SseFrame | undefined {
    const { data, id, event } = this;
    this.data = [];
    this.dataBytes = 0;
    this.id = undefined;
    this.event = undefined;
    if (data.length === 0) return undefined;
    const bytes = data.length === 1 ? data[0] : Buffer.concat(data.flatMap((part, index) => (index === 0 ? [part] : [LF_BYTE, part])));
    return { data: bytes, ...(id !== undefined && { id }), ...(event !== undefined && { event }) };
  }
}

/** The events of any SSE body, their data as bytes. */
export async function* readSseFrames(
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>,
  options: SseReadOptions = {},
): AsyncGenerator<SseFrame> {
  const builder = new EventBuilder(options);
  const maxBytes = options.maxEventBytes ?? Infinity;
  // The start of a line whose end has not arrived yet, as the chunks' own views.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // The last chunk ended with CR: an LF at the start of the next one belongs to it.
  let afterCr = false;
  for await (const raw of chunksOf(body)) {
    const chunk = asBuffer(raw);
    let start = afterCr && chunk[0] === LF ? 1 : 0;
    afterCr = false;
    let nextLf = chunk.indexOf(LF, start);
    let nextCr = chunk.indexOf(CR, start);
    while (nextLf !== -1 || nextCr !== -1) {
      const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
      const piece = chunk.subarray(start, end);
      const line = pending.length === 0 ? piece : Buffer.concat([...pending, piece]);
      pending = [];
      pendingBytes = 0;
      start = end + 1;
      if (chunk[end] === CR) {
        if (start === chunk.length) afterCr = true;
        else if (chunk[start] === LF) start += 1;
      }
      const frame = builder.line(line);
      if (frame) yield frame;
      if (nextLf !== -1 && nextLf < start) nextLf = chunk.indexOf(LF, start);
      if (nextCr !== -1 && nextCr < start) nextCr = chunk.indexOf(CR, start);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      pendingBytes += chunk.length - start;
      if (pendingBytes > maxBytes) throw new SseEventTooLarge(maxBytes);
    }
  }
}
