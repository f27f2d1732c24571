import { buildExtendedXmp, buildXmpPacket, extendedGuidOf, md5Hex, svcPayloadOf } from './xmp-packet.js';

// JPEG: our metadata is an XMP APP1 segment after the leading APP0/APP1 run
// (Adobe's extended XMP when the payload outgrows one segment). The scan data
// is not touched, so the image is not re-encoded.

const STANDARD_HEADER = Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1');
const EXTENSION_HEADER = Buffer.from('http://ns.adobe.com/xmp/extension/\0', 'latin1');
const APP0 = 0xe0;
const APP1 = 0xe1;
const SOS = 0xda;
const EOI = 0xd9;
/** Largest segment payload (the length field counts itself). */
const SEGMENT_PAYLOAD_MAX = 0xffff - 2;
/** Bytes of extended packet per segment: header, GUID (32), full length (4), offset (4). */
const EXTENSION_CHUNK_MAX = SEGMENT_PAYLOAD_MAX - EXTENSION_HEADER.length - 32 - 8;

interface Segment {
  marker: number;
  start: number;
  end: number;
  payload: Buffer;
}

/** The marker segments before the scan data (SOS ends the walk). */
function headerSegments(jpeg: Buffer): { segments: Segment[]; bodyStart: number } {
  const segments: Segment[] = [];
  let offset = 2;
  for (;;) {
    if (offset + 4 > jpeg.length || jpeg[offset] !== 0xff) throw new Error('JPEG marker expected');
    let markerAt = offset + 1;
    while (jpeg[markerAt] === 0xff && markerAt < jpeg.length) markerAt += 1; // fill bytes
    const marker = jpeg[markerAt];
    if (marker === SOS || marker === EOI) return { segments, bodyStart: offset };
    const length = jpeg.readUInt16BE(markerAt + 1);
    const end = markerAt + 1 + length;
    if (length < 2 || end > jpeg.length) throw new Error('JPEG segment runs past the end of the file');
    segments.push({ marker, start: offset, end, payload: jpeg.subarray(markerAt + 3, end) });
    offset = end;
  }
}

const startsWith = (payload: Buffer, header: Buffer): boolean =>
  payload.length >= header.length && payload.subarray(0, header.length).equals(header);

const isXmpSegment = (segment: Segment): boolean =>
  segment.marker === APP1 && (startsWith(segment.payload, STANDARD_HEADER) || startsWith(segment.payload, EXTENSION_HEADER));

function segment(marker: number, payload: Buffer): Buffer {
  const head = Buffer.from([0xff, marker, 0, 0]);
  head.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([head, payload]);
}

function xmpSegments(json: string): Buffer[] {
  const packet = Buffer.from(buildXmpPacket(json));
  if (STANDARD_HEADER.length + packet.length <= SEGMENT_PAYLOAD_MAX) {
    return [segment(APP1, Buffer.concat([STANDARD_HEADER, packet]))];
  }
  const { standard, extended, guid } = buildExtendedXmp(json);
  const segments = [segment(APP1, Buffer.concat([STANDARD_HEADER, Buffer.from(standard)]))];
  for (let offset = 0; offset < extended.length; offset += EXTENSION_CHUNK_MAX) {
    const numbers = Buffer.alloc(8);
    numbers.writeUInt32BE(extended.length, 0);
    numbers.writeUInt32BE(offset, 4);
    const part = extended.subarray(offset, offset + EXTENSION_CHUNK_MAX);
    segments.push(segment(APP1, Buffer.concat([EXTENSION_HEADER, Buffer.from(guid, 'latin1'), numbers, part])));
  }
  return segments;
}

/** The JPEG with our XMP (any earlier XMP is replaced). */
export function withJpegXmp(jpeg: Buffer, json: string): Buffer {
  const { segments, bodyStart } = headerSegments(jpeg);
  const kept = segments.filter((current) => !isXmpSegment(current));
  // After JFIF (APP0) and Exif (APP1), where XMP conventionally sits.
  let insertAt = 0;
  while (insertAt < kept.length && (kept[insertAt].marker === APP0 || kept[insertAt].marker === APP1)) insertAt += 1;
  const parts = [jpeg.subarray(0, 2)];
  kept.forEach((current, index) => {
    if (index === insertAt) parts.push(...xmpSegments(json));
    parts.push(jpeg.subarray(current.start, current.end));
  });
  if (insertAt === kept.length) parts.push(...xmpSegments(json));
  parts.push(jpeg.subarray(bodyStart));
  return Buffer.concat(parts);
}

/** Our JSON payload from a JPEG's XMP, standard or extended. */
export function readJpegXmp(jpeg: Buffer): string | undefined {
  const { segments } = headerSegments(jpeg);
  let standard: string | undefined;
  const extensions = new Map<string, { length: number; parts: { offset: number; data: Buffer }[] }>();
  for (const current of segments) {
    if (current.marker !== APP1) continue;
    if (startsWith(current.payload, STANDARD_HEADER)) {
      standard ??= current.payload.toString('utf8', STANDARD_HEADER.length);
    } else if (startsWith(current.payload, EXTENSION_HEADER)) {
      const at = EXTENSION_HEADER.length;
      const guid = current.payload.toString('latin1', at, at + 32);
      const entry = extensions.get(guid) ?? { length: current.payload.readUInt32BE(at + 32), parts: [] };
      entry.parts.push({ offset: current.payload.readUInt32BE(at + 36), data: current.payload.subarray(at + 40) });
      extensions.set(guid, entry);
    }
  }
  if (standard === undefined) return undefined;
  const inline = svcPayloadOf(standard);
  if (inline !== undefined) return inline;
  const guid = extendedGuidOf(standard);
  const extension = guid ? extensions.get(guid) : undefined;
  if (!guid || !extension) return undefined;
  const whole = Buffer.alloc(extension.length);
  for (const part of extension.parts) {
    if (part.offset + part.data.length > whole.length) return undefined;
    part.data.copy(whole, part.offset);
  }
  if (md5Hex(whole) !== guid) return undefined;
  return svcPayloadOf(whole.toString('utf8'));
}
