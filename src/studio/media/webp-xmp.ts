import { buildXmpPacket, svcPayloadOf } from './xmp-packet.js';

// WebP: our metadata is an `XMP ` chunk. A simple (VP8/VP8L) file becomes an
// extended one with a VP8X header; the bitstream itself is not re-encoded.

const VP8X_XMP = 0x04;
const VP8X_ALPHA = 0x10;

interface RiffChunk {
  fourcc: string;
  start: number;
  end: number;
  data: Buffer;
}

function riffChunks(webp: Buffer): RiffChunk[] {
  const declaredEnd = Math.min(webp.length, 8 + webp.readUInt32LE(4));
  const found: RiffChunk[] = [];
  let offset = 12;
  while (offset + 8 <= declaredEnd) {
    const size = webp.readUInt32LE(offset + 4);
    const dataEnd = offset + 8 + size;
    if (dataEnd > webp.length) throw new Error('WebP chunk runs past the end of the file');
    const end = Math.min(webp.length, dataEnd + (size & 1)); // chunks are padded to even sizes
    found.push({ fourcc: webp.toString('latin1', offset, offset + 4), start: offset, end, data: webp.subarray(offset + 8, dataEnd) });
    offset = end;
  }
  return found;
}

function riffChunk(fourcc: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(fourcc, 0, 'latin1');
  head.writeUInt32LE(data.length, 4);
  return Buffer.concat(data.length & 1 ? [head, data, Buffer.alloc(1)] : [head, data]);
}

/** VP8L keeps an alpha_is_used bit after its 28 bits of size. */
const vp8lHasAlpha = (data: Buffer): boolean => data.length >= 5 && ((data.readUInt32LE(1) >>> 28) & 1) === 1;

function vp8x(flags: number, width: number, height: number): Buffer {
  const data = Buffer.alloc(10);
  data[0] = flags;
  data.writeUIntLE(width - 1, 4, 3);
  data.writeUIntLE(height - 1, 7, 3);
  return riffChunk('VP8X', data);
}

/** The WebP with our XMP chunk (any earlier XMP is replaced). Width and height are the canvas size. */
export function withWebpXmp(webp: Buffer, json: string, size: { width: number; height: number }): Buffer {
  const chunks = riffChunks(webp).filter((chunk) => chunk.fourcc !== 'XMP ');
  const xmp = riffChunk('XMP ', Buffer.from(buildXmpPacket(json)));
  const parts: Buffer[] = [];
  const header = chunks[0];
  if (header?.fourcc === 'VP8X') {
    const data = Buffer.from(header.data);
    data[0] |= VP8X_XMP;
    parts.push(riffChunk('VP8X', data), ...chunks.slice(1).map((chunk) => webp.subarray(chunk.start, chunk.end)));
  } else {
    const alpha = chunks.some((chunk) => chunk.fourcc === 'VP8L' && vp8lHasAlpha(chunk.data));
    parts.push(
      vp8x(VP8X_XMP | (alpha ? VP8X_ALPHA : 0), size.width, size.height),
      ...chunks.map((chunk) => webp.subarray(chunk.start, chunk.end)),
    );
  }
  parts.push(xmp);
  const body = Buffer.concat(parts);
  const riff = Buffer.alloc(12);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length + 4, 4);
  riff.write('WEBP', 8, 'latin1');
  return Buffer.concat([riff, body]);
}

/** Our JSON payload from a WebP's XMP chunk. */
export function readWebpXmp(webp: Buffer): string | undefined {
  const chunk = riffChunks(webp).find((current) => current.fourcc === 'XMP ');
  return chunk ? svcPayloadOf(chunk.data.toString('utf8')) : undefined;
}
