import type { ImageFormat } from './image-type.js';

// A cheap structural check of an image, on the request path: the container's
// header gives the pixel size (and JPEG's EXIF orientation), its trailer says
// the file is complete. Decoding every pixel happens later, off the request
// path (assets.ts); this only keeps an obviously cut or malformed file out.

export interface ImageHeader {
  /** Stored pixel size. */
  readonly width: number;
  readonly height: number;
  /** The size as displayed (EXIF orientation 5–8 swaps the sides). */
  readonly displayed: { readonly width: number; readonly height: number };
}

export class ImageStructureError extends Error {}

const fail = (message: string): never => {
  throw new ImageStructureError(message);
};

const PNG_IEND = Buffer.from([0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]);

function pngHeader(bytes: Buffer): ImageHeader {
  if (bytes.length < 8 + 25 + 12 || bytes.toString('latin1', 12, 16) !== 'IHDR' || bytes.readUInt32BE(8) !== 13)
    fail('PNG without its IHDR header');
  if (!bytes.subarray(bytes.length - 12).equals(PNG_IEND)) fail('PNG cut short (no IEND chunk at its end)');
  const width = bytes.readUInt32BE(16);
  const height = bytes.readUInt32BE(20);
  return { width, height, displayed: { width, height } };
}

/** EXIF orientation (1–8) of a JPEG APP1 segment's TIFF data, or undefined. */
function exifOrientation(tiff: Buffer): number | undefined {
  if (tiff.length < 8) return undefined;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  if (!little && tiff.toString('latin1', 0, 2) !== 'MM') return undefined;
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return undefined;
  const entries = u16(ifd);
  for (let index = 0; index < entries; index += 1) {
    const entry = ifd + 2 + index * 12;
    if (entry + 12 > tiff.length) return undefined;
    if (u16(entry) === 0x0112) return u16(entry + 8);
  }
  return undefined;
}

/** Start-of-frame markers: baseline, extended, progressive, lossless (not DHT, JPG or DAC). */
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegHeader(bytes: Buffer): ImageHeader {
  // The file must end with EOI (encoders may pad a few zero bytes after it).
  let end = bytes.length;
  while (end > 2 && bytes[end - 1] === 0x00 && bytes.length - end < 16) end -= 1;
  if (bytes[end - 2] !== 0xff || bytes[end - 1] !== 0xd9) fail('JPEG cut short (no end-of-image marker)');
  let orientation: number | undefined;
  let offset = 2;
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) fail('JPEG with a malformed segment');
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset += 1; // fill byte
      continue;
    }
    const length = bytes.readUInt16BE(offset + 2);
    if (length < 2 || offset + 2 + length > bytes.length) fail('JPEG segment runs past the end of the file');
    if (marker === 0xe1 && bytes.toString('latin1', offset + 4, offset + 10) === 'Exif\0\0') {
      orientation = exifOrientation(bytes.subarray(offset + 10, offset + 2 + length));
    }
    if (SOF_MARKERS.has(marker)) {
      if (length < 8) fail('JPEG frame header too short');
      const height = bytes.readUInt16BE(offset + 5);
      const width = bytes.readUInt16BE(offset + 7);
      if (!width || !height) fail('JPEG without a pixel size');
      const swap = orientation !== undefined && orientation >= 5 && orientation <= 8;
      return { width, height, displayed: swap ? { width: height, height: width } : { width, height } };
    }
    if (marker === 0xda) break; // scan data before any frame header
    offset += 2 + length;
  }
  return fail('JPEG without a frame header');
}

function webpHeader(bytes: Buffer): ImageHeader {
  const declared = bytes.readUInt32LE(4) + 8;
  if (bytes.length < 30 || declared > bytes.length || declared + 1 < bytes.length)
    fail('WebP whose RIFF size does not match the file (cut short or padded)');
  const chunk = bytes.toString('latin1', 12, 16);
  let width: number;
  let height: number;
  if (chunk === 'VP8X') {
    width = 1 + bytes.readUIntLE(24, 3);
    height = 1 + bytes.readUIntLE(27, 3);
  } else if (chunk === 'VP8 ') {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) fail('WebP (lossy) without its frame signature');
    width = bytes.readUInt16LE(26) & 0x3fff;
    height = bytes.readUInt16LE(28) & 0x3fff;
  } else if (chunk === 'VP8L') {
    if (bytes[20] !== 0x2f) fail('WebP (lossless) without its signature');
    const bits = bytes.readUInt32LE(21);
    width = 1 + (bits & 0x3fff);
    height = 1 + ((bits >> 14) & 0x3fff);
  } else {
    return fail(`WebP with an unknown first chunk ${JSON.stringify(chunk)}`);
  }
  return { width, height, displayed: { width, height } };
}

/** The structure of an image of a sniffed format; throws ImageStructureError when it is malformed or cut short. */
export function readImageHeader(bytes: Buffer, format: ImageFormat): ImageHeader {
  switch (format) {
    case 'png':
      return pngHeader(bytes);
    case 'jpeg':
      return jpegHeader(bytes);
    case 'webp':
      return webpHeader(bytes);
  }
}
