import type { AssetFormat, ImageFormat } from '../api/index.js';

export type { AssetFormat, ImageFormat } from '../api/index.js';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const;

const MIME: Record<AssetFormat, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  mp4: 'video/mp4',
};

/** File extension we give each format (one per format; `jpeg` is saved as `.jpg`). */
export const EXTENSION: Record<AssetFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp', svg: 'svg', mp4: 'mp4' };

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0): boolean =>
  bytes.length >= at + prefix.length && prefix.every((byte, index) => bytes[at + index] === byte);

const ascii = (text: string): number[] => [...text].map((char) => char.charCodeAt(0));

/** The format of an image from its magic bytes (never from a name or a declared type). */
export function sniffImageType(bytes: Uint8Array): ImageFormat | undefined {
  if (startsWith(bytes, PNG_SIGNATURE)) return 'png';
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) return 'webp';
  return undefined;
}

export const mimeOf = (format: AssetFormat): string => MIME[format];
