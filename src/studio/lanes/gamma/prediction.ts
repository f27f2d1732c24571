import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceError } from '../../../common/errors.js';
import { maskSecrets } from '../../../common/secrets.js';
import { callUpstream, readJson, UpstreamError } from '../../upstream/index.js';
import type { LaneJob } from '../types.js';
import { budgetSpent, gammaError } from './errors.js';
import type { GammaCall } from './upload.js';
import { GAMMA_POLL_INTERVALS_MS, jsonObject, parseGammaError, predictionIdOf, readPoll, stateOf, type GammaOutput, type PollReading } from './protocol.js';

// A prediction (§3–4): submitted once, then polled until it is done, failed,
// or the job's budget or cancel stops it. The id is recorded on the job as
// soon as it is known, so a restarted studio polls the same prediction.

/** Submits the generation; answers the prediction id (recorded on the job before this returns). */
export async function submitPrediction(call: GammaCall, body: Record<string, unknown>, job: LaneJob): Promise<string> {
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
  if (!id) throw new ServiceError('GAMMA_NO_PREDICTION_ID', 'gamma accepted the generation but its answer holds no prediction id.', { details: { lane: 'gamma', retryable: true } });
  job.operation(id, readPoll(answer).status ?? 'submitted');
  return id;
}

/** A poll that did not answer (a rate limit, a server or network hiccup): polling is free to repeat. */
const transient = (error: unknown): error is UpstreamError =>
  error instanceof UpstreamError && (error.failure === 'network' || (error.failure === 'http' && (error.status === 429 || (error.status ?? 0) >= 500)));

async function pollOnce(call: GammaCall, id: string): Promise<PollReading> {
  const body = await callUpstream(
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
  return readPoll(body);
}

export interface Finished {
  readonly output: GammaOutput;
  /** The upstream model, when the prediction says. */
  readonly model: string | undefined;
}

/** Polls until the prediction is done (with an output) or failed; the budget and the cancel end it. */
export async function awaitPrediction(call: GammaCall, id: string, job: LaneJob, budgetMs: number): Promise<Finished> {
  let lastStatus: string | undefined;
  for (let attempt = 0; ; attempt += 1) {
    const wait = GAMMA_POLL_INTERVALS_MS[Math.min(attempt, GAMMA_POLL_INTERVALS_MS.length - 1)];
    if (call.timeoutMs() <= wait) {
      await sleep(call.timeoutMs(), undefined, { signal: call.signal }).catch(() => undefined);
      if (call.signal.aborted) throw call.signal.reason;
      throw budgetSpent(budgetMs, id);
    }
    try {
      await sleep(wait, undefined, { signal: call.signal });
    } catch {
      throw call.signal.reason;
    }
    let reading: PollReading;
    try {
      reading = await pollOnce(call, id);
    } catch (error) {
      if (transient(error) && !call.signal.aborted) continue;
      throw gammaError('poll', error);
    }
    if (reading.status && reading.status !== lastStatus) {
      lastStatus = reading.status;
      job.operation(id, reading.status);
    }
    const state = stateOf(reading.status);
    if (state === 'failed') {
      const why = maskSecrets(reading.reason ?? 'no reason given', [call.key]).slice(0, 300);
      throw new ServiceError('GAMMA_GENERATION_FAILED', `gamma reported the generation as ${reading.status}: ${why}`, {
        details: { lane: 'gamma', predictionId: id, upstreamStatus: reading.status, upstreamMessage: why, retryable: false },
      });
    }
    // Done counts once an output is there too (§4); until then, keep polling.
    if (state === 'done' && reading.output) return { output: reading.output, model: reading.model };
  }
}
