import { ServiceError } from '../errors.js';
import { VIDEO_MAX_BYTES, type AssetRecord } from '../api/index.js';
import type { StudioContext } from '../context.js';
import { looksLikeMp4 } from '../media/video/index.js';
import { callUpstream, readBytes, UpstreamError } from '../upstream/index.js';
import { linkRefusal } from '../upstream/public-link.js';
import { saveVideoAsset } from './save-video.js';

// A remote MP4 to extend (POST /api/video/extend with `url`): https only, on a
// public address, no redirect followed (the upstream client refuses them, so a
// redirect can never lead to another host), at most 200 MiB, bytes checked to
// be MP4, then kept in history as an imported video (kind `import`), so the
// extension job works from a durable file like any other.

const refused = (message: string, url: string): ServiceError =>
  new ServiceError('VIDEO_URL_REFUSED', message, { details: { field: 'url', url: url.slice(0, 200) } });

async function checkedUrl(text: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw refused('url is not a URL.', text);
  }
  // No own origin here: a remote video is always someone else's, so public https only.
  const refusal = await linkRefusal(url, undefined);
  if (refusal) throw refused(`url (${url.host}) is not fetched: ${refusal.reason}.`, text);
  return url;
}

/** Fetches a remote MP4 and saves it to history; answers its record. */
export async function importRemoteVideo(ctx: StudioContext, text: string, requestId: string): Promise<AssetRecord> {
  const url = await checkedUrl(text);
  let bytes: Buffer;
  try {
    bytes = await callUpstream({ lane: 'video', url: url.href, timeoutMs: 120_000 }, (response) =>
      readBytes('video', response, VIDEO_MAX_BYTES),
    );
  } catch (error) {
    if (error instanceof UpstreamError && error.failure === 'protocol')
      throw new ServiceError('VIDEO_SOURCE_TOO_LARGE', `The video at url is larger than ${VIDEO_MAX_BYTES / 1024 / 1024} MiB.`, {
        details: { field: 'url', limitBytes: VIDEO_MAX_BYTES },
      });
    throw refused(`The video at url could not be fetched (${(error as Error).message}); redirects are not followed.`, text);
  }
  if (!looksLikeMp4(bytes)) throw new ServiceError('VIDEO_SOURCE_INVALID', 'The file at url is not an MP4.', { details: { field: 'url' } });
  return saveVideoAsset(ctx, {
    bytes,
    metadata: {
      prompt: `${url.host}${url.pathname}`.slice(0, 200),
      lane: 'import',
      model: 'remote',
      requestId,
      kind: 'import',
      settings: { operation: 'import', source: `${url.origin}${url.pathname}`.slice(0, 500) },
    },
  });
}
