import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { callUpstream, UpstreamError, type UpstreamResponse } from '../../upstream/index.js';
import { alphaError, parseAlphaError } from './errors.js';
import { laneTimeoutMs } from '../budget.js';
import { ALPHA_PIPELINE_BUDGET_MS, phaseBudgetMs, type AlphaStep } from './phases.js';
import { freshAlphaSession, loginRequired, type SessionTarget } from './session.js';
import { readAlphaSession } from './session-file.js';

// How the alpha lanes reach the vendor: one bearer (the OAuth session's access
// token on `alpha`, ALPHA_API_KEY on `alpha-api`) and one step at a time, each
// under its own budget. A 401 on the session is not billed: the session is
// refreshed (or another process's refresh picked up) and the call sent once
// more. Failures come back in the lane's codes, naming the step.

export type AlphaLaneId = 'alpha' | 'alpha-api';

export interface AlphaCredential {
  readonly kind: 'session' | 'key';
  readonly bearer: string;
}

/** The session file and issuer of the `alpha` lane. */
export const sessionTarget = (ctx: LaneEnv): SessionTarget => ({
  file: ctx.sessionFile('alpha'),
  issuerUrl: ctx.upstreamUrl('alpha', 'issuer'),
  secrets: ctx.secrets,
});

/** ALPHA_API_KEY (environment, then config.json); API_KEY_REQUIRED without one. */
export function alphaApiKey(ctx: LaneEnv): string {
  const key = ctx.key('alpha');
  if (!key)
    throw new ServiceError(
      'API_KEY_REQUIRED',
      'The alpha-api lane needs ALPHA_API_KEY: set it in the environment or under "keys".alpha in config.json.',
      { details: { lane: 'alpha-api', env: 'ALPHA_API_KEY' } },
    );
  return key.value;
}

/** Checks before a job is accepted: the key, or a session file with an access token. */
export function checkAlphaCredential(ctx: LaneEnv, lane: AlphaLaneId): void {
  if (lane === 'alpha-api') {
    alphaApiKey(ctx);
    return;
  }
  if (!readAlphaSession(ctx.sessionFile('alpha'))) throw loginRequired(ctx.sessionFile('alpha'), 'There is no alpha session.');
}

async function credentialOf(ctx: LaneEnv, lane: AlphaLaneId, signal: AbortSignal, rejected?: string): Promise<AlphaCredential> {
  if (lane === 'alpha-api') return { kind: 'key', bearer: alphaApiKey(ctx) };
  const session = await freshAlphaSession(sessionTarget(ctx), { signal, rejected });
  return { kind: 'session', bearer: session.accessToken };
}

/** One step's calls: its budget starts when the step does. */
export interface AlphaCall {
  readonly lane: AlphaLaneId;
  readonly step: AlphaStep;
  readonly budgetMs: number;
  readonly signal: AbortSignal;
  /** What is left of the step's budget. */
  remainingMs(): number;
  /** POSTs `body` (JSON) to `{base}{path}` and reads the answer; errors in the lane's codes. */
  send<T>(path: string, body: string | Blob, read: (response: UpstreamResponse) => Promise<T>): Promise<T>;
  /** GETs `{base}{path}` (a video job's status) the same way. */
  get<T>(path: string, read: (response: UpstreamResponse) => Promise<T>): Promise<T>;
  /** Maps a failure of this step (or of the download in it) to the lane's codes. */
  fail(error: unknown, what?: 'download'): unknown;
}

export interface AlphaClient {
  readonly lane: AlphaLaneId;
  step(step: AlphaStep): AlphaCall;
}

export async function alphaClient(ctx: LaneEnv, lane: AlphaLaneId, signal: AbortSignal): Promise<AlphaClient> {
  const baseUrl = ctx.upstreamUrl(lane);
  // The lane's variable (SVC_ALPHA_TIMEOUT_MS, SVC_ALPHA_API_TIMEOUT_MS) caps the whole pipeline, as every lane's caps its call.
  const pipelineEndsAt = Date.now() + laneTimeoutMs(ctx, { id: lane, timeoutMs: ALPHA_PIPELINE_BUDGET_MS });
  let credential = await credentialOf(ctx, lane, signal);
  return {
    lane,
    step(step) {
      const budgetMs = Math.max(1, Math.min(phaseBudgetMs(ctx, step), pipelineEndsAt - Date.now()));
      const endsAt = Date.now() + budgetMs;
      const remainingMs = () => Math.max(1, endsAt - Date.now());
      const fail = (error: unknown, what?: 'download') => alphaError(what ?? step, error, { lane, credential: credential.kind, budgetMs });
      const post = <T>(path: string, body: string | Blob | undefined, read: (response: UpstreamResponse) => Promise<T>) =>
        callUpstream(
          {
            lane,
            url: `${baseUrl}${path}`,
            method: body === undefined ? 'GET' : 'POST',
            headers: {
              authorization: `Bearer ${credential.bearer}`,
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
              accept: 'application/json',
            },
            ...(body === undefined ? {} : { body }),
            credentials: [credential.bearer],
            timeoutMs: remainingMs(),
            signal,
            parseError: parseAlphaError,
          },
          read,
        );
      const send = async <T>(
        path: string,
        body: string | Blob | undefined,
        read: (response: UpstreamResponse) => Promise<T>,
      ): Promise<T> => {
        try {
          return await post(path, body, read);
        } catch (error) {
          const unauthorized = error instanceof UpstreamError && error.failure === 'http' && error.status === 401;
          if (!unauthorized || credential.kind !== 'session') throw fail(error);
          try {
            credential = await credentialOf(ctx, lane, signal, credential.bearer);
            return await post(path, body, read);
          } catch (retryError) {
            throw fail(retryError);
          }
        }
      };
      const call: AlphaCall = {
        lane,
        step,
        budgetMs,
        signal,
        remainingMs,
        fail,
        send: (path, body, read) => send(path, body, read),
        get: (path, read) => send(path, undefined, read),
      };
      return call;
    },
  };
}
