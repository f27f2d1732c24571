import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServiceError } from '../errors.js';
import { toServiceError } from '../../common/http-errors.js';
import type { AssetRecord, JobResult } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { studioStorage } from '../jobs/limits.js';
import { mimeOf } from '../media/image-type.js';

// What a tool answers: a job's assets as MCP content (the image itself when it
// is small enough, else a link to its resource), their history names in text
// and structuredContent; an error as `isError` with the studio's code. Each
// session is answered in the content types of the protocol it negotiated:
// `resource_link` exists from 2025-06-18; an older client (SDK 1.0–1.12) throws
// on it, so it gets the asset as an embedded resource, or its URI in text.

/** The most bytes of an image a tool result carries inline; a larger one is a resource link. */
export const IMAGE_CONTENT_MAX_BYTES = 1024 * 1024;

/** Formats MCP image content carries (an SVG or a video is always a link). */
const INLINE_FORMATS = new Set(['png', 'jpeg', 'webp']);

/** A history asset's resource URI. */
export const HISTORY_URI_PREFIX = 'svc://history/';
export const historyUri = (filename: string): string => `${HISTORY_URI_PREFIX}${encodeURIComponent(filename)}`;

type Content = CallToolResult['content'][number];

/** The assets a job result saved to history, in order (a multimode batch: its successful slots). */
export function assetsOf(result: JobResult): AssetRecord[] {
  if ('images' in result) return result.images;
  if ('video' in result && typeof result.video === 'object' && result.video !== null && 'filename' in result.video)
    return [result.video as AssetRecord];
  if ('results' in result && Array.isArray(result.results))
    return result.results.flatMap((slot) => ('image' in slot && slot.image ? [slot.image] : []));
  if ('filename' in result && 'format' in result) return [result as AssetRecord];
  return [];
}

/** The first protocol version with `resource_link` content (MCP 2025-06-18). */
export const RESOURCE_LINK_SINCE = '2025-06-18';

/** Whether a session of this protocol version reads `resource_link` content (versions are dates: they compare as text). */
export const hasResourceLinks = (protocolVersion: string): boolean => protocolVersion >= RESOURCE_LINK_SINCE;

/** The resource link of an asset (what a client reads with resources/read). */
export const resourceLink = (asset: AssetRecord): Content => ({
  type: 'resource_link',
  uri: historyUri(asset.filename),
  name: asset.filename,
  mimeType: mimeOf(asset.format),
  description: asset.prompt.slice(0, 200),
});

/** An asset's URI in words, for a client that has no resource links and an asset too large to embed. */
const uriText = (asset: AssetRecord): Content => ({
  type: 'text',
  text: `${asset.filename}: ${historyUri(asset.filename)} (${mimeOf(asset.format)}, ${asset.bytes} bytes; read it with resources/read).`,
});

/** An asset as a resource: embedded when it fits (an SVG as its text), else its link, or its URI in text before resource links existed. */
async function resourceContent(ctx: StudioContext, asset: AssetRecord, protocolVersion: string): Promise<Content> {
  if (hasResourceLinks(protocolVersion)) return resourceLink(asset);
  if (asset.bytes > IMAGE_CONTENT_MAX_BYTES) return uriText(asset);
  const bytes = await ctx.assets.read('generated', asset.filename, { maxBytes: IMAGE_CONTENT_MAX_BYTES });
  if (!(bytes instanceof Buffer)) return uriText(asset);
  const resource = { uri: historyUri(asset.filename), mimeType: mimeOf(asset.format) };
  return {
    type: 'resource',
    resource: asset.format === 'svg' ? { ...resource, text: bytes.toString('utf8') } : { ...resource, blob: bytes.toString('base64') },
  };
}

/** One asset as content: the image inline when it fits, else as a resource (in the session protocol's content types). */
export async function assetContent(ctx: StudioContext, asset: AssetRecord, protocolVersion: string): Promise<Content> {
  if (!INLINE_FORMATS.has(asset.format) || asset.bytes > IMAGE_CONTENT_MAX_BYTES) return resourceContent(ctx, asset, protocolVersion);
  const bytes = await ctx.assets.read('generated', asset.filename, { maxBytes: IMAGE_CONTENT_MAX_BYTES });
  if (!(bytes instanceof Buffer)) return resourceContent(ctx, asset, protocolVersion);
  return { type: 'image', data: bytes.toString('base64'), mimeType: mimeOf(asset.format) };
}

/** A finished job as a tool result: its assets, their history names, and the job's result as structured content. */
export async function jobToolResult(
  ctx: StudioContext,
  requestId: string,
  result: JobResult,
  protocolVersion: string,
): Promise<CallToolResult> {
  const assets = assetsOf(result);
  const names = assets.map((asset) => asset.filename);
  const text = names.length
    ? `Saved to history: ${names.map((name) => `${name} (${historyUri(name)})`).join(', ')}. requestId ${requestId}.`
    : `The job ${requestId} finished without a saved asset.`;
  return {
    content: [{ type: 'text', text }, ...(await Promise.all(assets.map((asset) => assetContent(ctx, asset, protocolVersion))))],
    structuredContent: { requestId, history: names, result },
  };
}

/** An error as a tool result: `isError`, the code first in the text, the studio's error shape as structured content. */
export function errorToolResult(ctx: StudioContext, error: unknown, requestId?: string): CallToolResult {
  const failure = error instanceof ServiceError ? error : toServiceError(error, studioStorage(ctx));
  if (!(error instanceof ServiceError)) console.error('mcp-server: a tool failed:', error);
  const body = failure.toBody();
  return {
    isError: true,
    content: [{ type: 'text', text: `${body.error.code}: ${body.error.message}` }],
    structuredContent: { ...body, ...(requestId ? { requestId } : {}) },
  };
}

/** Plain data as a tool result (the JSON in text too, for clients that read only text). */
export const dataToolResult = (data: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(data) }],
  structuredContent: data,
});
