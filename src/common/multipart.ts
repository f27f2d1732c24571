// A small multipart/form-data parser (RFC 7578) for buffered bodies: the
// simulators' upload endpoints and the studio's OpenAI-compatible image edits.
// The body's size is bounded by whoever buffered it; this splits on the
// boundary in one pass (every search starts where the last one ended, and a
// part's head is searched within its bound only), so parsing is linear in the
// body. Parts and head sizes are bounded, and a text field is sent once: a
// repeated one is refused unless its name ends in `[]` (an array field).

/** Bounds on a form (MULTIPART_LIMITS unless the caller says). */
export interface MultipartLimits {
  /** Most parts (fields and files together). */
  readonly maxParts: number;
  /** Largest head of one part (its header lines), bytes. */
  readonly maxHeadBytes: number;
}

export const MULTIPART_LIMITS: MultipartLimits = { maxParts: 256, maxHeadBytes: 16 * 1024 };

export interface MultipartField {
  readonly name: string;
  readonly value: string;
}

export interface MultipartFile {
  readonly name: string;
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
}

export interface MultipartForm {
  readonly fields: readonly MultipartField[];
  readonly files: readonly MultipartFile[];
}

export class MultipartError extends Error {}

export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\b/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match ? (match[1] ?? match[2]) : undefined;
}

function headerParam(header: string, param: string): string | undefined {
  // Handles name="a;b" as well as name=a; filename* (RFC 5987) is not used by the clients we serve.
  const match = new RegExp(`;\\s*${param}=(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]*))`, 'i').exec(header);
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2];
}

/** An array field's name: sent once per value. */
const isArrayField = (name: string): boolean => name.endsWith('[]');

export function parseMultipart(body: Buffer, boundary: string, limits: MultipartLimits = MULTIPART_LIMITS): MultipartForm {
  const delimiter = Buffer.from(`--${boundary}`);
  const partEnd = Buffer.from(`\r\n--${boundary}`);
  const fields: MultipartField[] = [];
  const files: MultipartFile[] = [];
  const fieldNames = new Set<string>();
  let position = body.indexOf(delimiter);
  if (position < 0) throw new MultipartError('The multipart body has no boundary line.');
  for (let parts = 0; ; parts += 1) {
    position += delimiter.length;
    // `--` right after a delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) break;
    if (parts === limits.maxParts) throw new MultipartError(`A multipart body holds at most ${limits.maxParts} parts.`);
    // The rest of the delimiter line (transport padding), then the head, both within the head's bound.
    const head = body.subarray(position, position + limits.maxHeadBytes + 4);
    const lineEnd = head.indexOf('\r\n');
    if (lineEnd < 0)
      throw new MultipartError(
        position + head.length >= body.length
          ? 'The multipart body ends inside a part.'
          : `A multipart part's head is over ${limits.maxHeadBytes} bytes.`,
      );
    const headerStart = position + lineEnd;
    const headEnd = head.indexOf('\r\n\r\n', lineEnd);
    if (headEnd < 0)
      throw new MultipartError(
        position + head.length >= body.length
          ? 'A multipart part has no header end.'
          : `A multipart part's head is over ${limits.maxHeadBytes} bytes.`,
      );
    const headerEnd = position + headEnd;
    const next = body.indexOf(partEnd, headerEnd + 4);
    if (next < 0) throw new MultipartError('The multipart body has no closing boundary.');
    const headers = new Map<string, string>();
    for (const line of body
      .subarray(headerStart + 2, headerEnd)
      .toString('utf8')
      .split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const disposition = headers.get('content-disposition') ?? '';
    const name = headerParam(disposition, 'name');
    if (name === undefined) throw new MultipartError('A multipart part has no name.');
    const data = body.subarray(headerEnd + 4, next);
    const filename = headerParam(disposition, 'filename');
    if (filename !== undefined) {
      files.push({ name, filename, contentType: headers.get('content-type') ?? 'application/octet-stream', data: Buffer.from(data) });
    } else {
      if (fieldNames.has(name) && !isArrayField(name))
        throw new MultipartError(
          `The field "${name.slice(0, 64)}" is sent twice: a field that is not an array (name ending in "[]") is sent once.`,
        );
      fieldNames.add(name);
      fields.push({ name, value: data.toString('utf8') });
    }
    position = next + 2;
  }
  return { fields, files };
}

/** The value of a text field (sent once: the parser refuses a repeated one). */
export function formField(form: MultipartForm, name: string): string | undefined {
  return form.fields.find((field) => field.name === name)?.value;
}

/** The text fields as an object, in one pass (an array field keeps its last value). */
export function formFields(form: MultipartForm): Record<string, string> {
  return Object.fromEntries(form.fields.map(({ name, value }) => [name, value]));
}
