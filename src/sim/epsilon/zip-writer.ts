import { crc32, deflateRawSync } from 'node:zlib';

// Single-entry ZIP archives as the epsilon vendor sends them (contract §4: a
// plain archive, sizes in the local header, stored or deflate), and the
// defective ones a client must refuse: encrypted, with a data descriptor,
// ZIP64 sizes, another method, a lying size (a zip bomb), cut short.

export interface ZipEntrySpec {
  readonly name: string;
  /** The entry's content (before compression). */
  readonly data: Buffer;
  /** 0 stored, 8 deflate (default), anything else as a foreign method (the bytes are stored). */
  readonly method?: number;
  /** Extra general-purpose flags: 0x1 encrypted, 0x8 data descriptor. */
  readonly flags?: number;
  /** Sizes as 0xFFFFFFFF with a ZIP64 extra field. */
  readonly zip64?: boolean;
  /** Declare this uncompressed size instead of the real one (a zip bomb lies here). */
  readonly declaredSize?: number;
  /** Already-compressed bytes to use as the entry's data (with method 8). */
  readonly compressed?: Buffer;
  /** Declare this CRC-32 instead of the real one. */
  readonly crc?: number;
}

const DOS_TIME = 0x6000; // 12:00:00
const DOS_DATE = 0x5a21; // 2025-01-01

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value);
  return buffer;
}

function u32(value: number): Buffer {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value >>> 0);
  return buffer;
}

function u64(value: number): Buffer {
  const buffer = Buffer.alloc(8);
  buffer.writeBigUInt64LE(BigInt(value));
  return buffer;
}

interface Built {
  readonly local: Buffer;
  readonly central: (offset: number) => Buffer;
}

function buildEntry(spec: ZipEntrySpec): Built {
  const method = spec.method ?? 8;
  const flags = spec.flags ?? 0;
  const payload = spec.compressed ?? (method === 8 ? deflateRawSync(spec.data) : spec.data);
  const size = spec.declaredSize ?? spec.data.length;
  const crc = spec.crc ?? crc32(spec.data);
  const name = Buffer.from(spec.name, 'utf8');
  const descriptor = (flags & 0x8) !== 0;
  const version = spec.zip64 ? 45 : 20;
  const extra = spec.zip64 ? Buffer.concat([u16(0x0001), u16(16), u64(size), u64(payload.length)]) : Buffer.alloc(0);
  const headerSizes = spec.zip64 ? [0xffffffff, 0xffffffff] : [payload.length, size];
  // With a data descriptor the local header carries zeros and the sizes follow the data.
  const localSizes = descriptor ? [0, 0, 0] : [crc, ...headerSizes];
  const local = Buffer.concat([
    u32(0x04034b50),
    u16(version),
    u16(flags),
    u16(method),
    u16(DOS_TIME),
    u16(DOS_DATE),
    u32(localSizes[0]),
    u32(localSizes[1]),
    u32(localSizes[2]),
    u16(name.length),
    u16(extra.length),
    name,
    extra,
    payload,
    ...(descriptor ? [u32(0x08074b50), u32(crc), u32(payload.length), u32(size)] : []),
  ]);
  const central = (offset: number) =>
    Buffer.concat([
      u32(0x02014b50),
      u16(version),
      u16(version),
      u16(flags),
      u16(method),
      u16(DOS_TIME),
      u16(DOS_DATE),
      u32(crc),
      u32(headerSizes[0]),
      u32(headerSizes[1]),
      u16(name.length),
      u16(extra.length),
      u16(0),
      u16(0),
      u16(0),
      u32(0),
      u32(offset),
      name,
      extra,
    ]);
  return { local, central };
}

/** A ZIP archive of the given entries (usually one). */
export function buildZip(entries: readonly ZipEntrySpec[]): Buffer {
  const built = entries.map(buildEntry);
  const offsets: number[] = [];
  let offset = 0;
  for (const entry of built) {
    offsets.push(offset);
    offset += entry.local.length;
  }
  const central = Buffer.concat(built.map((entry, index) => entry.central(offsets[index])));
  const end = Buffer.concat([
    u32(0x06054b50),
    u16(0),
    u16(0),
    u16(entries.length),
    u16(entries.length),
    u32(central.length),
    u32(offset),
    u16(0),
  ]);
  return Buffer.concat([...built.map((entry) => entry.local), central, end]);
}

let zeros: Buffer | undefined;
/** 51 MiB of zeros, deflated (about 50 KB): a large entry, or a bomb when its header lies. Made once. */
export function deflatedZeros(): { compressed: Buffer; size: number } {
  const size = 51 * 1024 * 1024;
  zeros ??= deflateRawSync(Buffer.alloc(size), { level: 9 });
  return { compressed: zeros, size };
}
