import { ServiceError } from '../../errors.js';
import { sniffImageType } from '../../media/image-type.js';
import { looksLikeMp4 } from '../../media/video/index.js';
import { callUpstream, readBytes } from '../../upstream/index.js';
import { linkRefusal } from '../../upstream/public-link.js';
import type { McpMediaKind } from './catalog.js';
import type { ToolCall } from './tools.js';

// The file of a finished task (§2.3): fetched only from https on a public
// address, or from the server's own origin (the simulator), never with the token (the links are
// public), never through a redirect, within a size limit; an image must sniff
// as PNG, JPEG or WebP, a video as MP4. A network hiccup is tried again by
// the engine's next step (the task still answers its link).

export const MCP_OUTPUT_MAX_BYTES: Readonly<Record<McpMediaKind, number>> = { image: 50 * 1024 * 1024, video: 200 * 1024 * 1024 };

const refused = (lane: string, message: string, retryable = false) =>
  new ServiceError('MCP_DOWNLOAD_FAILED', message, { details: { lane, retryable } });

export async function downloadResult(call: ToolCall, link: string, media: McpMediaKind): Promise<Buffer> {
  const { lane } = call.target;
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw refused(lane, `${lane} gave a result link that is not a URL.`);
  }
  const where = `${url.origin}${url.pathname}`.slice(0, 200);
  const refusal = await linkRefusal(url, new URL(call.target.endpoint).origin);
  if (refusal)
    throw refused(lane, `${lane} gave a result link the studio does not fetch (${where}): ${refusal.reason}.`, refusal.retryable);
  let bytes: Buffer;
  try {
    bytes = await callUpstream({ lane, url: url.href, timeoutMs: call.timeoutMs(), signal: call.signal }, (response) =>
      readBytes(lane, response, MCP_OUTPUT_MAX_BYTES[media]),
    );
  } catch (error) {
    if (call.signal.aborted) throw call.signal.reason;
    throw refused(lane, `The ${lane} result (${where}) could not be downloaded: ${(error as Error).message}`, true);
  }
  const fits = media === 'image' ? sniffImageType(bytes) !== undefined : looksLikeMp4(bytes);
  if (!fits)
    throw refused(lane, `The ${lane} result (${where}) is not ${media === 'image' ? 'a PNG, JPEG or WebP image' : 'an MP4 video'}.`);
  return bytes;
}
