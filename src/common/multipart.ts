// A small multipart/form-data parser (RFC 7578) for buffered bodies: the
// simulators' upload endpoints and the studio's OpenAI-compatible image edits.
// The body's size is bounded by whoever buffered it; this splits on the boundary.

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

export function parseMultipart(body: Buffer, boundary: string): MultipartForm {
  const delimiter = Buffer.from(`--${boundary}`);
  const fields: MultipartField[] = [];
  const files: MultipartFile[] = [];
  let position = body.indexOf(delimiter);
  if (position < 0) throw new MultipartError('The multipart body has no boundary line.');
  for (;;) {
    position += delimiter.length;
    // `--` right after a delimiter closes the body.
    if (body[position] === 0x2d && body[position + 1] === 0x2d) break;
    const headerStart = body.indexOf('\r\n', position);
    if (headerStart < 0) throw new MultipartError('The multipart body ends inside a part.');
    const headerEnd = body.indexOf('\r\n\r\n', headerStart);
    if (headerEnd < 0) throw new MultipartError('A multipart part has no header end.');
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) throw new MultipartError('The multipart body has no closing boundary.');
    const headers = new Map<string, string>();
    for (const line of body.subarray(headerStart + 2, headerEnd).toString('utf8').split('\r\n')) {
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
      fields.push({ name, value: data.toString('utf8') });
    }
    position = next + 2;
  }
  return { fields, files };
}

/** The last value of a text field (clients send each once; the last one wins like most servers). */
export function formField(form: MultipartForm, name: string): string | undefined {
  let value: string | undefined;
  for (const field of form.fields) if (field.name === name) value = field.value;
  return value;
}
