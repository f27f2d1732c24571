import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import type { Entry, ZipFile } from 'yauzl';
import { ServiceError, type ErrorCode } from '../../errors.js';

// The epsilon answer: a ZIP archive holding one PNG (contract §4). It is read
// with yauzl (central directory, local header, streaming inflate that checks
// the declared sizes), under the contract's guards: encrypted entries, data
// descriptors, ZIP64 and methods other than stored/deflate are refused, an
// entry over 50 MB is refused from its header before any inflating, and the
// inflated bytes are counted as they come, so an archive that lies about its
// size (a zip bomb) is stopped at its declared size. Each defect has its code.

/** yauzl loads with the first epsilon answer, not at start. */
type Yauzl = typeof import('yauzl');
let loading: Promise<Yauzl> | undefined;
const loadYauzl = () => (loading ??= import('yauzl').then((module) => module.default));

/** Contract §4: entries over 50 MB are refused. */
export const EPSILON_ENTRY_MAX_BYTES = 50 * 1024 * 1024;

const LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const FLAG_ENCRYPTED = 0x1;
const FLAG_DATA_DESCRIPTOR = 0x8;
const FLAG_STRONG_ENCRYPTION = 0x40;
const ZIP64_EXTRA_FIELD = 0x0001;
const ZIP64_MARKER = 0xffffffff;
const METHOD_STORED = 0;
const METHOD_DEFLATE = 8;

type Defect =
  | 'empty'
  | 'not_zip'
  | 'truncated'
  | 'entries'
  | 'header_mismatch'
  | 'crc'
  | 'size_mismatch'
  | 'encrypted'
  | 'data_descriptor'
  | 'zip64'
  | 'method'
  | 'too_large'
  | 'not_png';

const CODES: Readonly<Record<Defect, ErrorCode>> = {
  empty: 'EPSILON_EMPTY_IMAGE',
  not_zip: 'EPSILON_RESPONSE_NOT_ZIP',
  truncated: 'EPSILON_ZIP_INVALID',
  entries: 'EPSILON_ZIP_INVALID',
  header_mismatch: 'EPSILON_ZIP_INVALID',
  crc: 'EPSILON_ZIP_INVALID',
  size_mismatch: 'EPSILON_ZIP_INVALID',
  encrypted: 'EPSILON_ZIP_UNSUPPORTED',
  data_descriptor: 'EPSILON_ZIP_UNSUPPORTED',
  zip64: 'EPSILON_ZIP_UNSUPPORTED',
  method: 'EPSILON_ZIP_UNSUPPORTED',
  too_large: 'EPSILON_ZIP_TOO_LARGE',
  not_png: 'EPSILON_IMAGE_INVALID',
};

const defect = (reason: Defect, message: string, extra: Record<string, unknown> = {}): ServiceError =>
  new ServiceError(CODES[reason], message, { details: { lane: 'epsilon', reason, retryable: false, ...extra } });

/** A body that is not a ZIP, said as what it is (often the vendor's JSON error). */
function notZip(body: Buffer): ServiceError {
  const text = body.subarray(0, 2000).toString('utf8').trim();
  if (text.startsWith('{') || text.startsWith('[')) {
    let said: string | undefined;
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { message?: unknown; error?: unknown };
      said = typeof parsed.message === 'string' ? parsed.message : typeof parsed.error === 'string' ? parsed.error : undefined;
    } catch {
      // Cut-off JSON: named as JSON all the same.
    }
    return defect('not_zip', `epsilon answered JSON instead of a ZIP archive${said ? `: ${said.slice(0, 200)}` : '.'}`, {
      bodyType: 'json',
    });
  }
  if (body.subarray(0, 2).toString('latin1') === 'PK')
    return defect('truncated', 'The epsilon answer starts like a ZIP archive but has no file entry first.');
  return defect('not_zip', 'epsilon answered something that is neither a ZIP archive nor JSON.', { bodyType: 'other' });
}

/** The archive's single entry (yauzl reads lazily: one entry at a time). */
function onlyEntry(zip: ZipFile): Promise<Entry> {
  return new Promise((resolve, reject) => {
    zip.once('entry', resolve);
    zip.once('error', reject);
    zip.once('end', () => reject(new Error('no entry')));
    zip.readEntry();
  });
}

const usesZip64 = (extraFields: readonly { id: number }[], sizes: readonly number[]) =>
  extraFields.some((field) => field.id === ZIP64_EXTRA_FIELD) || sizes.includes(ZIP64_MARKER);

/** The guards on what an entry (central directory or local header) declares. */
function checkDeclared(
  where: string,
  flags: number,
  method: number,
  zip64: boolean,
  compressedSize: number,
  uncompressedSize: number,
): void {
  if (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) throw defect('encrypted', `The epsilon ZIP entry is encrypted (${where}).`);
  if (flags & FLAG_DATA_DESCRIPTOR)
    throw defect(
      'data_descriptor',
      `The epsilon ZIP entry keeps its sizes in a trailing data descriptor (${where}); only sizes in the header are read.`,
    );
  if (zip64) throw defect('zip64', `The epsilon ZIP entry uses ZIP64 sizes (${where}).`);
  if (method !== METHOD_STORED && method !== METHOD_DEFLATE)
    throw defect('method', `The epsilon ZIP entry uses compression method ${method}; only stored (0) and deflate (8) are read.`, {
      method,
    });
  const largest = Math.max(compressedSize, uncompressedSize);
  if (largest > EPSILON_ENTRY_MAX_BYTES) {
    throw defect('too_large', `The epsilon ZIP entry declares ${largest} bytes; the limit is ${EPSILON_ENTRY_MAX_BYTES}.`, {
      maxBytes: EPSILON_ENTRY_MAX_BYTES,
      declaredBytes: largest,
    });
  }
}

/** Reads an entry's stream, stopping at `limit` bytes whatever the stream would give. */
function readAtMost(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.destroy();
        reject(defect('size_mismatch', `The epsilon ZIP entry inflates past its declared ${limit} bytes; reading stopped there.`));
        return;
      }
      chunks.push(chunk);
    });
    stream.once('error', (error: Error) =>
      reject(defect('size_mismatch', `The epsilon ZIP entry does not inflate to what it declares (${error.message}).`)),
    );
    stream.once('end', () => resolve(Buffer.concat(chunks, size)));
  });
}

/** What the first local file header declares (30 bytes, then the name and the extra field). */
interface LocalHeader {
  readonly flags: number;
  readonly method: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  readonly dataStart: number;
}

/**
 * The contract's guards on the first local header, read before anything else
 * (as the source's reader does): a library would refuse some of these entries
 * with a generic error, or read them (a data descriptor, ZIP64) where the
 * contract says to refuse.
 */
function firstLocalHeader(body: Buffer, yauzl: Yauzl): LocalHeader {
  if (body.length < 30) throw defect('truncated', 'The epsilon ZIP archive ends inside its first header.');
  const nameLength = body.readUInt16LE(26);
  const extraLength = body.readUInt16LE(28);
  const dataStart = 30 + nameLength + extraLength;
  if (body.length < dataStart) throw defect('truncated', 'The epsilon ZIP archive ends inside its first header.');
  const header = {
    flags: body.readUInt16LE(6),
    method: body.readUInt16LE(8),
    compressedSize: body.readUInt32LE(18),
    uncompressedSize: body.readUInt32LE(22),
    dataStart,
  };
  const extra = yauzl.parseExtraFields(body.subarray(30 + nameLength, dataStart));
  checkDeclared(
    'local header',
    header.flags,
    header.method,
    usesZip64(extra, [header.compressedSize, header.uncompressedSize]),
    header.compressedSize,
    header.uncompressedSize,
  );
  if (dataStart + header.compressedSize > body.length) {
    throw defect(
      'truncated',
      `The epsilon ZIP entry is truncated: ${header.compressedSize} bytes declared, ${body.length - dataStart} present.`,
    );
  }
  return header;
}

/** The PNG inside an epsilon answer; throws the defect's ServiceError. */
export async function readEpsilonZip(body: Buffer): Promise<Buffer> {
  if (body.length === 0) throw defect('empty', 'epsilon answered with an empty body.');
  if (!body.subarray(0, 4).equals(LOCAL_HEADER)) throw notZip(body);
  const yauzl = await loadYauzl();
  const local = firstLocalHeader(body, yauzl);
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(body, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true });
  } catch (error) {
    throw defect('truncated', `The epsilon ZIP archive cannot be read: it is truncated or damaged (${(error as Error).message}).`);
  }
  try {
    if (zip.entryCount !== 1)
      throw defect('entries', `The epsilon ZIP archive holds ${zip.entryCount} entries; one was expected.`, { entries: zip.entryCount });
    let entry: Entry;
    try {
      entry = await onlyEntry(zip);
    } catch (error) {
      throw defect('truncated', `The epsilon ZIP entry cannot be read (${(error as Error).message}).`);
    }
    checkDeclared(
      'central directory',
      entry.generalPurposeBitFlag,
      entry.compressionMethod,
      usesZip64(entry.extraFields, [entry.compressedSize, entry.uncompressedSize]),
      entry.compressedSize,
      entry.uncompressedSize,
    );
    if (
      entry.relativeOffsetOfLocalHeader !== 0 ||
      local.method !== entry.compressionMethod ||
      local.compressedSize !== entry.compressedSize ||
      local.uncompressedSize !== entry.uncompressedSize
    ) {
      throw defect('header_mismatch', 'The epsilon ZIP entry says one thing in its local header and another in the central directory.');
    }
    let stream: Readable;
    try {
      stream = await zip.openReadStreamPromise(entry);
    } catch (error) {
      throw defect('truncated', `The epsilon ZIP entry cannot be opened (${(error as Error).message}).`);
    }
    const bytes = await readAtMost(stream, entry.uncompressedSize);
    if (bytes.length !== entry.uncompressedSize)
      throw defect(
        'size_mismatch',
        `The epsilon ZIP entry inflated to ${bytes.length} bytes, not the ${entry.uncompressedSize} it declares.`,
      );
    if (crc32(bytes) >>> 0 !== entry.crc32 >>> 0) throw defect('crc', 'The epsilon ZIP entry fails its CRC-32 check: its data is damaged.');
    if (!bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE))
      throw defect('not_png', `The epsilon ZIP entry "${entry.fileName.slice(0, 100)}" is not a PNG image.`);
    return bytes;
  } finally {
    zip.close();
  }
}
