import { ServiceError } from '../../errors.js';
import { sniffImageType } from '../../media/image-type.js';
import { callUpstream, readBytes } from '../../upstream/index.js';
import { linkForMessage } from '../../upstream/public-link.js';
import type { LaneImage } from '../types.js';
import { gammaError } from './errors.js';
import { GAMMA_OUTPUT_MAX_BYTES, type GammaOutput } from './protocol.js';

// The output image of a prediction. A URL is fetched only when it is https or
// on the gamma base URL's own origin (the simulator), without the key (the
// links are public), without redirects, within a size limit; whatever comes
// back must sniff as PNG, JPEG or WebP.

const refused = (message: string, details: Record<string, unknown> = {}): ServiceError =>
  new ServiceError('GAMMA_OUTPUT_DOWNLOAD_FAILED', message, { details: { lane: 'gamma', retryable: false, ...details } });

/** Where an output link points, without its query (signed links carry tokens there). */
const where = linkForMessage;

function checkedUrl(link: string, baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw refused('gamma gave an output link that is not a URL.');
  }
  if (url.protocol !== 'https:' && url.origin !== new URL(baseUrl).origin) {
    throw refused(`gamma gave an output link the studio does not fetch (${where(url)}): only https, or the gamma base URL's own origin.`, {
      output: where(url),
    });
  }
  if (url.username || url.password) throw refused('gamma gave an output link with credentials in it.', { output: where(url) });
  return url;
}

function image(bytes: Buffer, source: string): LaneImage {
  const format = sniffImageType(bytes);
  if (!format) throw refused(`The gamma output (${source}) is not a PNG, JPEG or WebP image.`, { output: source });
  return { bytes, format };
}

export interface DownloadTarget {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
}

export async function downloadOutput(output: GammaOutput, target: DownloadTarget): Promise<LaneImage> {
  if (output.kind === 'inline') {
    // Checked before decoding, like a reference: an oversized inline image costs no memory.
    if ((output.base64.length * 3) / 4 > GAMMA_OUTPUT_MAX_BYTES)
      throw refused(`The gamma inline output is over ${GAMMA_OUTPUT_MAX_BYTES} bytes.`);
    return image(Buffer.from(output.base64, 'base64'), 'inline');
  }
  const url = checkedUrl(output.url, target.baseUrl);
  try {
    const bytes = await callUpstream({ lane: 'gamma', url: url.href, timeoutMs: target.timeoutMs, signal: target.signal }, (response) =>
      readBytes('gamma', response, GAMMA_OUTPUT_MAX_BYTES),
    );
    return image(bytes, where(url));
  } catch (error) {
    throw gammaError('download', error);
  }
}
