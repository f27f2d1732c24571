import { ServiceError } from '../../errors.js';
import { maskSecrets } from '../../../common/secrets.js';
import { callUpstream, readJson, UpstreamError } from '../../upstream/index.js';
import { gammaError } from './errors.js';
import type { GammaCall } from './upload.js';
import { jsonObject, parseGammaError, predictionIdOf, readPoll, stateOf, type GammaOutput } from './protocol.js';

// A prediction (§3–4): submitted once, then read by status calls the job
// engine schedules until it is done or failed (the engine's deadline and
// cancel stop it). The id is stored on the job before any status call, so a
// restarted studio reads the same prediction.

/** Submits the generation; answers the prediction id and the status the vendor gave. */
export async function submitPrediction(call: GammaCall, body: Record<string, unknown>): Promise<{ id: string; status: string }> {
  let answer;
  try {
    answer = await callUpstream(
      {
        lane: 'gamma',
        url: `${call.baseUrl}/model/generateImage`,
        headers: { authorization: `Bearer ${call.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        credentials: [call.key],
        timeoutMs: call.timeoutMs(),
        signal: call.signal,
        parseError: parseGammaError,
      },
      (response) => readJson('gamma', response, jsonObject, 1024 * 1024),
    );
  } catch (error) {
    throw gammaError('submit', error);
  }
  const id = predictionIdOf(answer);
  if (!id)
    throw new ServiceError('GAMMA_NO_PREDICTION_ID', 'gamma accepted the generation but its answer holds no prediction id.', {
      details: { lane: 'gamma', retryable: true },
    });
  return { id, status: readPoll(answer).status ?? 'submitted' };
}

/** A poll that did not answer (a rate limit, a server or network hiccup): polling is free to repeat. */
const transient = (error: unknown): error is UpstreamError =>
  error instanceof UpstreamError &&
  (error.failure === 'network' || (error.failure === 'http' && (error.status === 429 || (error.status ?? 0) >= 500)));

/** What one status call found. */
export type PredictionReading =
  | { readonly state: 'pending'; readonly status: string | undefined; readonly retryAfterMs?: number }
  | { readonly state: 'done'; readonly status: string | undefined; readonly output: GammaOutput; readonly model: string | undefined };

/** One status call: pending (also after a hiccup worth another try), done with its output, or a thrown failure. */
export async function readPrediction(call: GammaCall, id: string): Promise<PredictionReading> {
  let body;
  try {
    body = await callUpstream(
      {
        lane: 'gamma',
        url: `${call.baseUrl}/model/prediction/${encodeURIComponent(id)}`,
        headers: { authorization: `Bearer ${call.key}` },
        credentials: [call.key],
        timeoutMs: call.timeoutMs(),
        signal: call.signal,
        parseError: parseGammaError,
      },
      (response) => readJson('gamma', response, jsonObject, 16 * 1024 * 1024),
    );
  } catch (error) {
    if (transient(error) && !call.signal.aborted)
      return {
        state: 'pending',
        status: undefined,
        ...(error.retryAfterSeconds !== undefined ? { retryAfterMs: error.retryAfterSeconds * 1000 } : {}),
      };
    throw gammaError('poll', error);
  }
  const reading = readPoll(body);
  const state = stateOf(reading.status);
  if (state === 'failed') {
    const why = maskSecrets(reading.reason ?? 'no reason given', [call.key]).slice(0, 300);
    throw new ServiceError('GAMMA_GENERATION_FAILED', `gamma reported the generation as ${reading.status}: ${why}`, {
      details: { lane: 'gamma', predictionId: id, upstreamStatus: reading.status, upstreamMessage: why, retryable: false },
    });
  }
  // Done counts once an output is there too (§4); until then, keep polling.
  if (state === 'done' && reading.output) return { state: 'done', status: reading.status, output: reading.output, model: reading.model };
  return { state: 'pending', status: reading.status };
}
