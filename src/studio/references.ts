import { loadSharp } from '../common/sharp.js';
import { ServiceError, type ErrorCode } from './errors.js';
import { LIMITS } from './catalog/limits.js';
import type { StudioContext } from './context.js';
import type { InputDescriptor } from './api/index.js';
import { isValidAssetFilename } from './media/filename.js';
import { readImageHeader } from './media/image-header.js';
import { mimeOf, sniffImageType, type ImageFormat } from './media/image-type.js';
import { inputHash } from './jobs/inputs.js';

// Input images of generation requests (references, and the image and mask of
// an edit). An item is one of:
//   "data:image/png;base64,...."      a data URL (the declared type is ignored)
//   "iVBORw0KGgo..."                   plain base64 (standard or URL-safe alphabet)
//   "20250101-120000-cat-1a2b3c4d5e.png"  a history file name
//   { "data": "<data URL or base64>", "name"?: "cat.png" }
//   { "filename": "<history file name>" }
// The type always comes from the bytes; the size limit is on decoded bytes.

export interface ReferenceImage {
  bytes: Buffer;
  format: ImageFormat;
  mime: string;
  width: number;
  height: number;
  source: 'inline' | 'history';
  /** The history file name, or the client's `name` for an inline image (sanitized). */
  filename?: string;
  /** Of the bytes: the name the job engine stores the image under (jobs/inputs.ts). */
  sha256: string;
}

export type { InputDescriptor };

export const describeInput = (image: ReferenceImage): InputDescriptor => ({
  source: image.source,
  ...(image.filename ? { filename: image.filename } : {}),
  format: image.format,
  width: image.width,
  height: image.height,
  bytes: image.bytes.length,
  sha256: image.sha256,
});

type ParsedItem = { kind: 'inline'; data: string; name?: string } | { kind: 'history'; filename: string };

interface Where {
  field: string;
  index?: number;
}

const fail = (code: ErrorCode, message: string, where: Where, extra: Record<string, unknown> = {}): ServiceError =>
  new ServiceError(code, message, {
    details: { field: where.field, ...(where.index === undefined ? {} : { index: where.index }), ...extra },
  });

const label = (where: Where): string => (where.index === undefined ? `\`${where.field}\`` : `\`${where.field}[${where.index}]\``);

const NAME_MAX_LENGTH = 100;
/** A client-given name, safe to put in a multipart header. */
const sanitizeName = (name: string): string => name.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, NAME_MAX_LENGTH);

/** A string that names a history file rather than carrying data: base64 never contains a dot. */
const looksLikeFilename = (text: string): boolean => text.includes('.') && !text.startsWith('data:');

function parseItem(item: unknown, where: Where): ParsedItem {
  if (typeof item === 'string') {
    return looksLikeFilename(item) ? { kind: 'history', filename: item } : { kind: 'inline', data: item };
  }
  if (item && typeof item === 'object' && !Array.isArray(item)) {
    const { data, filename, name } = item as Record<string, unknown>;
    if (name !== undefined && typeof name !== 'string') throw fail('REFERENCE_INVALID', `${label(where)}.name must be a string.`, where);
    if (typeof data === 'string' && filename === undefined)
      return { kind: 'inline', data, name: name === undefined ? undefined : sanitizeName(name) };
    if (typeof filename === 'string' && data === undefined) return { kind: 'history', filename };
  }
  throw fail(
    'REFERENCE_INVALID',
    `${label(where)} must be a data URL, base64 text, a history file name, { "data": ... } or { "filename": ... }.`,
    where,
  );
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64_URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** The base64 text of an inline item (a data URL's payload or the whole string). */
function base64Of(data: string, where: Where): string {
  let text = data;
  if (data.startsWith('data:')) {
    const comma = data.indexOf(',');
    const header = comma === -1 ? '' : data.slice(5, comma);
    if (comma === -1 || !header.split(';').includes('base64')) {
      throw fail('REFERENCE_INVALID', `${label(where)} is a data URL without a ;base64 payload.`, where);
    }
    text = data.slice(comma + 1);
  }
  text = text.replace(/\s+/g, '');
  if (!text || (!BASE64.test(text) && !BASE64_URL.test(text)) || text.replace(/=+$/, '').length % 4 === 1) {
    throw fail('REFERENCE_INVALID', `${label(where)} is not valid base64.`, where);
  }
  return text;
}

/** The pixel size a file's header declares, or undefined when the header cannot be read. */
function declaredSize(bytes: Buffer, format: ImageFormat): { width: number; height: number } | undefined {
  try {
    return readImageHeader(bytes, format);
  } catch {
    return undefined;
  }
}

const decodedLength = (base64: string): number => Math.floor((base64.replace(/=+$/, '').length * 3) / 4);

const tooLarge = (bytes: number, where: Where): ServiceError =>
  fail('REFERENCE_TOO_LARGE', `${label(where)} is ${bytes} bytes; the limit is ${LIMITS.referenceMaxBytes}.`, where, {
    maxBytes: LIMITS.referenceMaxBytes,
    bytes,
  });

function inlineBytes(item: { data: string }, where: Where): Buffer {
  const base64 = base64Of(item.data, where);
  const size = decodedLength(base64);
  // Checked before decoding so an oversized item costs no memory.
  if (size > LIMITS.referenceMaxBytes) throw tooLarge(size, where);
  return Buffer.from(base64, BASE64.test(base64) ? 'base64' : 'base64url');
}

async function historyBytes(ctx: StudioContext, filename: string, where: Where): Promise<Buffer> {
  if (!isValidAssetFilename(filename)) {
    throw fail('INVALID_FILENAME', `${label(where)} is not a valid history file name.`, where);
  }
  const row = await ctx.store.assets.find(filename);
  const notFound = () => fail('REFERENCE_NOT_FOUND', `${label(where)} names ${filename}, which is not in history.`, where, { filename });
  if (!row || row.deleted_at !== null) throw notFound();
  const bytes = await ctx.assets.read('generated', filename, { maxBytes: LIMITS.referenceMaxBytes });
  if (bytes === undefined) throw notFound();
  if ('tooLarge' in bytes) throw tooLarge(bytes.tooLarge, where);
  return bytes;
}

async function loadOne(ctx: StudioContext, item: unknown, where: Where): Promise<ReferenceImage> {
  const parsed = parseItem(item, where);
  const bytes = parsed.kind === 'inline' ? inlineBytes(parsed, where) : await historyBytes(ctx, parsed.filename, where);
  if (bytes.length === 0) throw fail('REFERENCE_INVALID', `${label(where)} is empty.`, where);
  const format = sniffImageType(bytes);
  if (!format) throw fail('REFERENCE_TYPE_UNSUPPORTED', `${label(where)} is not a PNG, JPEG or WebP image.`, where);
  // The header's size first: a small file can declare a huge image (a decompression bomb).
  const maxPixels = LIMITS.referenceMaxPixels;
  const tooManyPixels = (width: number, height: number) =>
    fail('REFERENCE_TOO_MANY_PIXELS', `${label(where)} is ${width}x${height}; the limit is ${maxPixels / 1e6} megapixels.`, where, {
      width,
      height,
      maxPixels,
    });
  // Read by us before sharp: past its own pixel limit sharp will not even read the metadata, which
  // would hide the reason. A header we cannot read is left to sharp to judge.
  const declared = declaredSize(bytes, format);
  if (declared && declared.width * declared.height > maxPixels) throw tooManyPixels(declared.width, declared.height);
  const sharp = await loadSharp();
  let width: number;
  let height: number;
  try {
    ({ width, height } = await sharp(bytes).metadata());
  } catch {
    throw fail('REFERENCE_INVALID', `${label(where)} cannot be decoded as ${format}.`, where);
  }
  if (width * height > maxPixels) throw tooManyPixels(width, height);
  // Then every pixel, so a truncated or damaged image is refused here, never sent upstream. libvips
  // decodes on sharp's worker threads (off the event loop), streaming, in little memory.
  try {
    await sharp(bytes, { limitInputPixels: maxPixels }).stats();
  } catch {
    throw fail('REFERENCE_INVALID', `${label(where)} is damaged or truncated: it cannot be decoded as ${format}.`, where);
  }
  const filename = parsed.kind === 'history' ? parsed.filename : parsed.name;
  return {
    bytes,
    format,
    mime: mimeOf(format),
    width,
    height,
    source: parsed.kind,
    ...(filename ? { filename } : {}),
    sha256: inputHash(bytes),
  };
}

/**
 * Loads a request's reference images, checking count (first, before any
 * decoding), size, type and existence. `max` is the lane's limit; more gives
 * `tooManyCode` (default REFERENCE_TOO_MANY) with details { max, got }.
 */
export async function loadReferences(
  ctx: StudioContext,
  items: unknown,
  options: { lane: string; max: number; tooManyCode?: ErrorCode; field?: string },
): Promise<ReferenceImage[]> {
  const field = options.field ?? 'references';
  if (items === undefined || items === null) return [];
  if (!Array.isArray(items)) throw fail('REFERENCE_INVALID', `\`${field}\` must be an array.`, { field });
  if (items.length > options.max) {
    throw new ServiceError(
      options.tooManyCode ?? 'REFERENCE_TOO_MANY',
      `The ${options.lane} lane accepts at most ${options.max} reference image${options.max === 1 ? '' : 's'}; got ${items.length}.`,
      { details: { field, lane: options.lane, max: options.max, got: items.length } },
    );
  }
  // One after another, so the error names the first bad item and memory holds one decode at a time.
  const loaded: ReferenceImage[] = [];
  for (const [index, item] of items.entries()) loaded.push(await loadOne(ctx, item, { field, index }));
  return loaded;
}

/** One input image (an edit's `image` or `mask`), same item shapes as a reference. */
export async function loadImageInput(ctx: StudioContext, item: unknown, field: string): Promise<ReferenceImage> {
  if (item === undefined || item === null) throw fail('REFERENCE_INVALID', `\`${field}\` is required.`, { field });
  return loadOne(ctx, item, { field });
}
