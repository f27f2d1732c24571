import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { lazy } from '../../common/lazy.js';
import { ASSET_KINDS, type AssetKind } from '../api/values.js';
import { sniffImageType, type ImageFormat } from './image-type.js';
import { isSvg, readSvgMetadata } from './svg.js';
import { readJpegXmp, withJpegXmp } from './jpeg-xmp.js';
import { readPngText, withPngText } from './png-text.js';
import { readWebpXmp, withWebpXmp } from './webp-xmp.js';

// The generation metadata embedded in every saved image, so a file copied out
// of the studio still says how it was made. One JSON payload for all formats:
// PNG iTXt chunk `svc:metadata`; JPEG and WebP XMP element `svc:metadata`.

/** Keyword of the PNG text chunk. */
export const PNG_METADATA_KEYWORD = 'svc:metadata';
/** Marks the payload as ours and versions its shape. */
export const METADATA_SCHEMA = 'svc.asset-metadata/1';

export interface AssetMetadata {
  prompt: string;
  lane: string;
  model: string;
  requestId: string;
  kind: AssetKind;
  settings: Record<string, unknown>;
  revisedPrompt?: string;
  sessionTitle?: string;
  createdAt?: string;
}

export { ASSET_KINDS, type AssetKind } from '../api/values.js';

const payloadSchema = lazy(() =>
  z.object({
    schema: z.literal(METADATA_SCHEMA),
    prompt: z.string(),
    lane: z.string(),
    model: z.string(),
    requestId: z.string(),
    kind: z.enum(ASSET_KINDS),
    settings: z.record(z.string(), z.unknown()),
    revisedPrompt: z.string().optional(),
    sessionTitle: z.string().optional(),
    createdAt: z.string().optional(),
  }),
);

/** The embedded JSON text: our schema tag, then the metadata's own fields. */
export function metadataPayload(metadata: AssetMetadata): string {
  const { prompt, lane, model, requestId, kind, settings, revisedPrompt, sessionTitle, createdAt } = metadata;
  return JSON.stringify({
    schema: METADATA_SCHEMA,
    prompt,
    lane,
    model,
    requestId,
    kind,
    settings,
    revisedPrompt,
    sessionTitle,
    createdAt,
  });
}

/**
 * The image with the metadata embedded, byte-level (no re-encode). `size` is
 * the pixel size, needed when a simple WebP gains its extended header.
 */
export function embedMetadata(
  bytes: Buffer,
  format: ImageFormat,
  metadata: AssetMetadata,
  size: { width: number; height: number },
): Buffer {
  const json = metadataPayload(metadata);
  switch (format) {
    case 'png':
      return withPngText(bytes, PNG_METADATA_KEYWORD, json);
    case 'jpeg':
      return withJpegXmp(bytes, json);
    case 'webp':
      return withWebpXmp(bytes, json, size);
  }
}

function embeddedJson(bytes: Buffer): string | undefined {
  if (isSvg(bytes)) return readSvgMetadata(bytes.toString('utf8'));
  switch (sniffImageType(bytes)) {
    case 'png':
      return readPngText(bytes, PNG_METADATA_KEYWORD);
    case 'jpeg':
      return readJpegXmp(bytes);
    case 'webp':
      return readWebpXmp(bytes);
    default:
      return undefined;
  }
}

/** The metadata embedded in an image file (path or bytes); undefined when absent, foreign or malformed. */
export async function readEmbeddedMetadata(file: string | Buffer): Promise<AssetMetadata | undefined> {
  const bytes = typeof file === 'string' ? await readFile(file) : file;
  let json: string | undefined;
  try {
    json = embeddedJson(bytes);
  } catch {
    return undefined; // a damaged container: no metadata to trust
  }
  return json === undefined ? undefined : parseMetadataPayload(json);
}

/** The metadata of an embedded JSON payload (any container: a video's tag too); undefined when foreign or malformed. */
export function parseMetadataPayload(json: string): AssetMetadata | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return undefined;
  }
  const result = payloadSchema.safeParse(parsed);
  if (!result.success) return undefined;
  const { schema: _schema, ...metadata } = result.data;
  return metadata;
}
