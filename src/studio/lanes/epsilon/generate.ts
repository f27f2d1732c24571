import type { LaneEnv } from '../env.js';
import { callUpstream, readBytes, UpstreamError } from '../../upstream/index.js';
import { laneTimeoutMs } from '../budget.js';
import type { LaneImageRequest, LaneImageResult, LaneJob, LaneModule } from '../types.js';
import { epsilonError, parseEpsilonError } from './errors.js';
import type { EpsilonOptions } from './options.js';
import { epsilonCall } from './request.js';
import { paymentRequired } from './subscription.js';
import { reportedSeed } from './reported-seed.js';
import { EPSILON_ENTRY_MAX_BYTES, readEpsilonZip } from './zip-reader.js';

// One epsilon generation: `POST {base}/ai/generate-image`, answered (200 or
// 201) with a ZIP archive holding the PNG.

/** The archive is read whole: one entry of at most 50 MB, stored or deflated, plus its headers. */
const BODY_MAX_BYTES = EPSILON_ENTRY_MAX_BYTES + 1024 * 1024;

export async function epsilonGenerate(
  ctx: LaneEnv,
  lane: LaneModule,
  key: string,
  request: LaneImageRequest<EpsilonOptions>,
  job: LaneJob,
): Promise<LaneImageResult> {
  const call = epsilonCall(request);
  job.phase('planning');
  let body: Buffer;
  try {
    body = await callUpstream(
      {
        lane: 'epsilon',
        url: `${ctx.upstreamUrl('epsilon')}/ai/generate-image`,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(call.body),
        credentials: [key],
        timeoutMs: laneTimeoutMs(ctx, lane),
        signal: job.signal,
        parseError: parseEpsilonError,
      },
      (response) => {
        job.phase('rendering');
        return readBytes('epsilon', response, BODY_MAX_BYTES);
      },
    );
  } catch (error) {
    if (error instanceof UpstreamError && error.failure === 'http' && error.status === 402)
      throw await paymentRequired(ctx, key, request.model.id, error, job.signal);
    throw epsilonError(error);
  }
  const png = await readEpsilonZip(body);
  const seed = reportedSeed(png);
  return { images: [{ bytes: png, format: 'png' }], settings: seed !== undefined ? { ...call.settings, seed } : call.settings };
}
