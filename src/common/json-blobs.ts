// JSON text whose long string values under some keys (an image's base64) are
// left out of the parse: each is replaced by a short placeholder and kept as
// a view of the bytes it came in. The rest of the document parses as usual;
// a blob becomes a string or bytes only when its reader asks, so an image an
// event repeats costs nothing.
//
// A key is matched only where a key can be (after `{` or `,`): inside a JSON
// string a quote is escaped, so `"result":"` there never matches.

/** Strings shorter than this are parsed as usual. */
const DEFAULT_MIN_BYTES = 1024;
const PLACEHOLDER = '\u0000blob:';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const isSpace = (byte: number | undefined): boolean => byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

export class JsonBlobs {
  constructor(private readonly blobs: readonly Buffer[]) {}

  /** The blob a parsed value stands for, or undefined when `value` is an ordinary value. */
  bytesOf(value: unknown): Buffer | undefined {
    if (typeof value !== 'string' || !value.startsWith(PLACEHOLDER)) return undefined;
    return this.blobs[Number(value.slice(PLACEHOLDER.length))];
  }

  /** The string `value` stands for: a blob as text (one copy), else `value` itself. */
  text(value: string): string;
  text(value: string | undefined): string | undefined;
  text(value: string | undefined): string | undefined {
    const bytes = this.bytesOf(value);
    return bytes ? bytes.toString('latin1') : value;
  }

  /** Base64 text decoded to bytes: a blob without an intermediate UTF-8 string. */
  base64(value: string): Buffer {
    return Buffer.from(this.text(value), 'base64');
  }
}

/** Where the string value of `key` at a key position starts (after its opening quote), from `from`. */
function findValue(bytes: Buffer, pattern: Buffer, from: number): { keyAt: number; valueStart: number } | undefined {
  for (let at = bytes.indexOf(pattern, from); at !== -1; at = bytes.indexOf(pattern, at + 1)) {
    let before = at - 1;
    while (isSpace(bytes[before])) before -= 1;
    if (bytes[before] !== 0x7b && bytes[before] !== 0x2c) continue;
    let cursor = at + pattern.length;
    while (isSpace(bytes[cursor])) cursor += 1;
    if (bytes[cursor] !== 0x3a) continue;
    cursor += 1;
    while (isSpace(bytes[cursor])) cursor += 1;
    if (bytes[cursor] !== QUOTE) continue;
    return { keyAt: at, valueStart: cursor + 1 };
  }
  return undefined;
}

/** The closing quote of a string that starts at `start`, and whether it holds escapes. */
function stringEnd(bytes: Buffer, start: number): { end: number; escaped: boolean } {
  let escaped = false;
  for (let quote = bytes.indexOf(QUOTE, start); quote !== -1; quote = bytes.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
    if (backslashes > 0) escaped = true;
    if (backslashes % 2 === 0) return { end: quote, escaped: escaped || bytes.subarray(start, quote).includes(BACKSLASH) };
  }
  throw new SyntaxError('Unterminated string in JSON');
}

/**
 * Parses JSON `bytes`, the string values of `keys` of at least `minBytes`
 * kept as blobs. Throws SyntaxError like JSON.parse on malformed text.
 */
export function parseJsonWithBlobs(
  bytes: Buffer,
  keys: readonly string[],
  minBytes = DEFAULT_MIN_BYTES,
): { value: unknown; blobs: JsonBlobs } {
  const found: Array<{ start: number; end: number; escaped: boolean }> = [];
  for (const key of keys) {
    const pattern = Buffer.from(JSON.stringify(key));
    for (let from = 0, hit = findValue(bytes, pattern, from); hit; hit = findValue(bytes, pattern, from)) {
      const { end, escaped } = stringEnd(bytes, hit.valueStart);
      if (end - hit.valueStart >= minBytes) found.push({ start: hit.valueStart, end, escaped });
      from = end + 1;
    }
  }
  if (found.length === 0) return { value: JSON.parse(bytes.toString('utf8')), blobs: new JsonBlobs([]) };
  found.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  const blobs: Buffer[] = [];
  let cursor = 0;
  for (const blob of found) {
    parts.push(bytes.toString('utf8', cursor, blob.start), `${JSON.stringify(PLACEHOLDER).slice(1, -1)}${blobs.length}`);
    const raw = bytes.subarray(blob.start, blob.end);
    // A vendor that escapes `/` as `\/` (or anything else): the rare string that needs unescaping does.
    blobs.push(blob.escaped ? Buffer.from(JSON.parse(`"${raw.toString('utf8')}"`) as string, 'latin1') : raw);
    cursor = blob.end;
  }
  parts.push(bytes.toString('utf8', cursor));
  return { value: JSON.parse(parts.join('')), blobs: new JsonBlobs(blobs) };
}
