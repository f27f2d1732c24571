import { ServiceError } from '../errors.js';
import { VIDEO_MAX_BYTES, isLaneId } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { looksLikeMp4 } from '../media/video/index.js';
import { callUpstream, readBytes } from '../upstream/index.js';
import { linkRefusal } from '../upstream/public-link.js';

// The MP4 of a finished clip whose lane answered a link (VideoOutput `url`):
// fetched only from https on a public address or the lane's own origin (its
// configured base URL's, or the one it names: how a simulator's links
// qualify), never with a credential, never through a redirect (the upstream
// client refuses them), at most VIDEO_MAX_BYTES, and kept only when its bytes
// are an MP4. Errors name the link's origin and path, never its query (signed
// links carry tokens); a network failure is `retryable` (the link is asked again).

const where = (url: URL): string => `${url.origin}${url.pathname}`.slice(0, 200);

export async function downloadVideoOutput(
  ctx: StudioContext,
  lane: string,
  output: { readonly url: string; readonly ownOrigin?: string; readonly failureCode?: string },
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Buffer> {
  const code = (output.failureCode ?? 'VIDEO_DOWNLOAD_FAILED') as 'VIDEO_DOWNLOAD_FAILED';
  const refused = (message: string, retryable: boolean, details: Record<string, unknown> = {}) =>
    new ServiceError(code, message, { details: { lane, retryable, ...details } });
  let url: URL;
  try {
    url = new URL(output.url);
  } catch {
    throw refused(`${lane} gave a video link that is not a URL.`, false);
  }
  const configured = isLaneId(lane) ? ctx.configuredUpstreamUrl(lane) : undefined;
  const ownOrigin = output.ownOrigin ?? (configured ? new URL(configured).origin : undefined);
  const refusal = await linkRefusal(url, ownOrigin);
  if (refusal)
    throw refused(`${lane} gave a video link the studio does not fetch (${where(url)}): ${refusal.reason}.`, refusal.retryable, {
      output: where(url),
    });
  let bytes: Buffer;
  try {
    bytes = await callUpstream({ lane, url: url.href, timeoutMs, signal }, (response) => readBytes(lane, response, VIDEO_MAX_BYTES));
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw refused(`The ${lane} video (${where(url)}) could not be downloaded: ${(error as Error).message}`, true, { output: where(url) });
  }
  if (!looksLikeMp4(bytes)) throw refused(`The ${lane} video link (${where(url)}) did not serve an MP4.`, false, { output: where(url) });
  return bytes;
}
