import { crc32 } from 'node:zlib';

// PNG: our metadata is an uncompressed iTXt chunk inserted before the first
// IDAT (readers such as libpng/sharp report text chunks seen before the pixel
// data in metadata().comments). The pixels are not re-encoded.

const SIGNATURE_LENGTH = 8;

interface Chunk {
  type: string;
  /** Offset of the chunk's length field. */
  start: number;
  /** Offset just past its CRC. */
  end: number;
  data: Buffer;
}

function* chunks(png: Buffer): Generator<Chunk> {
  let offset = SIGNATURE_LENGTH;
  while (offset + 12 <= png.length) {
    const length = png.readUInt32BE(offset);
    const end = offset + 12 + length;
    if (end > png.length) throw new Error('PNG chunk runs past the end of the file');
    const type = png.toString('latin1', offset + 4, offset + 8);
    yield { type, start: offset, end, data: png.subarray(offset + 8, offset + 8 + length) };
    if (type === 'IEND') return;
    offset = end;
  }
  throw new Error('PNG has no IEND chunk');
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/** iTXt data: keyword, NUL, compression flag 0, method 0, empty language and translated keyword, UTF-8 text. */
const itxtData = (keyword: string, text: string): Buffer =>
  Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0, 0, 0, 0, 0]), Buffer.from(text, 'utf8')]);

function parseItxt(data: Buffer): { keyword: string; text: string } | undefined {
  const keywordEnd = data.indexOf(0);
  if (keywordEnd < 1) return undefined;
  const compressed = data[keywordEnd + 1] !== 0;
  const languageEnd = data.indexOf(0, keywordEnd + 3);
  const translatedEnd = languageEnd === -1 ? -1 : data.indexOf(0, languageEnd + 1);
  if (compressed || translatedEnd === -1) return undefined;
  return { keyword: data.toString('latin1', 0, keywordEnd), text: data.toString('utf8', translatedEnd + 1) };
}

/** The PNG with one iTXt `keyword` chunk holding `text` (an older one is replaced). */
export function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  const parts: Buffer[] = [png.subarray(0, SIGNATURE_LENGTH)];
  let inserted = false;
  for (const current of chunks(png)) {
    if (current.type === 'iTXt' && parseItxt(current.data)?.keyword === keyword) continue;
    if (!inserted && (current.type === 'IDAT' || current.type === 'IEND')) {
      parts.push(chunk('iTXt', itxtData(keyword, text)));
      inserted = true;
    }
    parts.push(png.subarray(current.start, current.end));
  }
  return Buffer.concat(parts);
}

/** The text of the iTXt `keyword` chunk, if present. */
export function readPngText(png: Buffer, keyword: string): string | undefined {
  for (const current of chunks(png)) {
    if (current.type !== 'iTXt') continue;
    const parsed = parseItxt(current.data);
    if (parsed?.keyword === keyword) return parsed.text;
  }
  return undefined;
}

/** The text of a tEXt `keyword` chunk (Latin-1, as the format defines it), if present; a damaged file has none. */
export function readPngLatin1Text(png: Buffer, keyword: string): string | undefined {
  try {
    for (const current of chunks(png)) {
      if (current.type !== 'tEXt') continue;
      const separator = current.data.indexOf(0);
      if (separator > 0 && current.data.toString('latin1', 0, separator) === keyword) return current.data.toString('latin1', separator + 1);
    }
  } catch {
    // A chunk runs past the end: no text to read.
  }
  return undefined;
}
