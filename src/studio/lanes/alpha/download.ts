import { ServiceError } from '../../errors.js';
import { sniffImageType } from '../../media/image-type.js';
import { callUpstream, readBytes } from '../../upstream/index.js';
import { linkForMessage, linkRefusal } from '../../upstream/public-link.js';
import type { LaneImage } from '../types.js';
import type { AlphaCall } from './call.js';

// A result the vendor gave as a link (contract §2: a plain temporary URL,
// fetched without auth, promptly). Fetched only when it is https on a public
// address, or on the lane's own configured origin (how the simulator's links
// qualify); never with the credential, never following a redirect (the
// upstream client refuses them), at most 50 MiB, and only kept when its bytes
// sniff as PNG, JPEG or WebP (the name's extension says nothing). Errors name
// the link's origin and path, never its query (signed links carry tokens).

export const ALPHA_OUTPUT_MAX_BYTES = 50 * 1024 * 1024;
const where = linkForMessage;

const refused = (lane: string, message: string, details: Record<string, unknown> = {}): ServiceError =>
  new ServiceError('ALPHA_OUTPUT_DOWNLOAD_FAILED', message, { details: { lane, step: 'download', retryable: false, ...details } });

/** The link checked: https on a public address, or the lane's own origin (upstream/public-link.ts). */
export async function checkedLink(call: AlphaCall, link: string, ownOrigin: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw refused(call.lane, `${call.lane} gave a result link that is not a URL.`);
  }
  const refusal = await linkRefusal(url, ownOrigin);
  if (refusal)
    throw refused(call.lane, `${call.lane} gave a result link the studio does not fetch (${where(url)}): ${refusal.reason}.`, {
      output: where(url),
      retryable: refusal.retryable,
    });
  return url;
}

export async function downloadImage(call: AlphaCall, link: string, ownOrigin: string): Promise<LaneImage> {
  const url = await checkedLink(call, link, ownOrigin);
  let bytes: Buffer;
  try {
    bytes = await callUpstream({ lane: call.lane, url: url.href, timeoutMs: call.remainingMs(), signal: call.signal }, (response) =>
      readBytes(call.lane, response, ALPHA_OUTPUT_MAX_BYTES),
    );
  } catch (error) {
    throw call.fail(error, 'download');
  }
  const format = sniffImageType(bytes);
  if (!format)
    throw refused(call.lane, `The ${call.lane} image link (${where(url)}) did not serve a PNG, JPEG or WebP image.`, {
      output: where(url),
    });
  return { bytes, format };
}
