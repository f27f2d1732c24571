import { isObject, type JsonObject } from '../agents/fields.js';

export interface NdjsonStats {
  /** JSON objects delivered. */
  objects: number;
  /** Lines that were not JSON, or JSON but not an object (banners, truncated lines). */
  skipped: number;
  /** Lines over the length cap, dropped unread. */
  oversized: number;
}

export interface NdjsonReaderOptions {
  /** Longest accepted line in bytes (without its newline). */
  maxLineBytes: number;
  onObject(object: JsonObject): void;
  /** Told about every skipped or oversized line (a short sample for traces). */
  onSkip?(kind: 'skipped' | 'oversized', sample: string): void;
}

const NEWLINE = 0x0a;
const SAMPLE_CHARS = 120;

/**
 * Splits a byte stream into NDJSON objects. Lines are cut on the newline byte,
 * which never occurs inside a multi-byte UTF-8 sequence, and each whole line is
 * decoded at once — so a character split across chunks is reassembled and the
 * length cap is exact in bytes. A line over the cap is dropped without being
 * buffered.
 */
export class NdjsonReader {
  readonly stats: NdjsonStats = { objects: 0, skipped: 0, oversized: 0 };
  private parts: Buffer[] = [];
  private size = 0;
  /** Inside an oversized line: discard bytes until its newline. */
  private discarding = false;

  constructor(private readonly options: NdjsonReaderOptions) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      this.append(chunk.subarray(start, end));
      if (newline === -1) return;
      this.finishLine();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline is still read. */
  end(): void {
    if (this.size > 0 || this.discarding) this.finishLine();
  }

  private append(bytes: Buffer): void {
    if (bytes.length === 0 || this.discarding) return;
    if (this.size + bytes.length > this.options.maxLineBytes) {
      this.discarding = true;
      this.options.onSkip?.(
        'oversized',
        Buffer.concat([...this.parts, bytes])
          .subarray(0, SAMPLE_CHARS)
          .toString('utf8'),
      );
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(bytes);
    this.size += bytes.length;
  }

  private finishLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.stats.oversized += 1;
      return;
    }
    const text = Buffer.concat(this.parts, this.size)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim();
    this.parts = [];
    this.size = 0;
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!isObject(value)) {
      this.stats.skipped += 1;
      this.options.onSkip?.('skipped', text.slice(0, SAMPLE_CHARS));
      return;
    }
    this.stats.objects += 1;
    this.options.onObject(value);
  }
}
