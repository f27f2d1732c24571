import { ServiceError } from '../../errors.js';
import { EXTENSION, sniffImageType } from '../../media/image-type.js';
import { callUpstream, readJson } from '../../upstream/index.js';
import type { LaneInputImage } from '../types.js';
import { gammaError } from './errors.js';
import { jsonObject, parseGammaError, uploadUrlOf } from './protocol.js';

// Reference uploads (§2): one multipart request per image, part `file` named
// `reference-<i>.<ext>` with the sniffed type, each answered with a temporary
// URL. They run one after another, all before the submit, order kept.

export interface GammaCall {
  readonly baseUrl: string;
  readonly key: string;
  /** The time left for this call (the whole job shares one budget). */
  readonly timeoutMs: () => number;
  readonly signal: AbortSignal;
}

export async function uploadReferences(call: GammaCall, images: readonly LaneInputImage[]): Promise<string[]> {
  const urls: string[] = [];
  for (const [index, image] of images.entries()) {
    const format = sniffImageType(image.bytes) ?? 'png';
    const form = new FormData();
    // A Buffer is backed by a plain ArrayBuffer (never a shared one): no copy is needed for the Blob.
    form.append(
      'file',
      new Blob([image.bytes as Uint8Array<ArrayBuffer>], { type: image.mime }),
      `reference-${index}.${EXTENSION[format]}`,
    );
    let body;
    try {
      body = await callUpstream(
        {
          lane: 'gamma',
          url: `${call.baseUrl}/model/uploadMedia`,
          headers: { authorization: `Bearer ${call.key}` },
          body: form,
          credentials: [call.key],
          timeoutMs: call.timeoutMs(),
          signal: call.signal,
          parseError: parseGammaError,
        },
        (response) => readJson('gamma', response, jsonObject, 1024 * 1024),
      );
    } catch (error) {
      throw gammaError('upload', error);
    }
    const url = uploadUrlOf(body);
    if (!url)
      throw new ServiceError('GAMMA_UPLOAD_NO_URL', `gamma took reference ${index} but its answer holds no URL.`, {
        details: { lane: 'gamma', index, retryable: true },
      });
    urls.push(url);
  }
  return urls;
}
