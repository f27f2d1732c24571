import { extname } from 'node:path';
import { EXIT_CODES } from '../common/errors.js';
import type { AssetFormat, ImageFormat } from '../studio/api/index.js';
import { embedMetadata, readEmbeddedMetadata } from '../studio/media/metadata.js';
import { CliError } from './client.js';

// `-o fox.png` promises a PNG: a file's bytes match its extension. A lane that
// made another raster format (delta and alpha answer JPEG) is converted here,
// its embedded generation metadata carried over; what cannot be converted (a
// video or an SVG into a raster name) is refused, naming both formats.

/** The raster format an extension names; undefined for any other extension (the bytes are written as they are). */
const FORMAT_OF_EXTENSION: Readonly<Record<string, ImageFormat>> = { '.png': 'png', '.jpg': 'jpeg', '.jpeg': 'jpeg', '.webp': 'webp' };

const CONVERTIBLE: readonly AssetFormat[] = ['png', 'jpeg', 'webp'];

/** One file written in another format than the lane made. */
export interface Conversion {
  readonly path: string;
  readonly from: AssetFormat;
  readonly to: ImageFormat;
  /** The original's history name (history keeps the lane's bytes). */
  readonly filename: string;
}

/** The format `path`'s extension names, when it names a raster format. */
export const formatOfPath = (path: string): ImageFormat | undefined => FORMAT_OF_EXTENSION[extname(path).toLowerCase()];

/**
 * The bytes to write at `path`: as downloaded when they already are the format its extension names
 * (or it names none), else converted; undefined `conversion` when nothing was converted.
 */
export async function bytesForPath(
  path: string,
  bytes: Buffer,
  asset: { readonly format: AssetFormat; readonly filename: string },
): Promise<{ bytes: Buffer; conversion?: Conversion }> {
  const wanted = formatOfPath(path);
  if (wanted === undefined || wanted === asset.format) return { bytes };
  if (!CONVERTIBLE.includes(asset.format)) {
    throw new CliError(
      `${path} names a ${wanted.toUpperCase()} file, but the result is ${asset.format.toUpperCase()} (in history as ${asset.filename}): use an .${asset.format} name.`,
      EXIT_CODES.usage,
      'OUT_FORMAT_MISMATCH',
      {
        path,
        format: asset.format,
        extensionFormat: wanted,
        filename: asset.filename,
      },
    );
  }
  const { default: sharp } = await import('sharp');
  const { data, info } = await sharp(bytes).toFormat(wanted).toBuffer({ resolveWithObject: true });
  const metadata = await readEmbeddedMetadata(bytes);
  const converted = metadata ? embedMetadata(data, wanted, metadata, { width: info.width, height: info.height }) : data;
  return { bytes: converted, conversion: { path, from: asset.format, to: wanted, filename: asset.filename } };
}

/** What the CLI says of a conversion. */
export const conversionNote = (conversion: Conversion): string =>
  `${conversion.path}: the lane made a ${conversion.from.toUpperCase()}; converted to ${conversion.to.toUpperCase()} to match the name (history keeps the original, ${conversion.filename}).`;
