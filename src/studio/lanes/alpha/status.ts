import { z } from 'zod';
import { lazy } from '../../../common/lazy.js';
import { ServiceError } from '../../errors.js';
import type { LaneEnv } from '../env.js';
import { readDescriptor, writeDescriptor } from '../../descriptor.js';
import { callUpstream, readJson, UpstreamError } from '../../upstream/index.js';
import { sessionTarget } from './call.js';
import { parseAlphaError } from './errors.js';
import { freshAlphaSession, isLoginRequired } from './session.js';
import { readAlphaSession, type AlphaSession } from './session-file.js';

// What the alpha session is and whether it works (contract
// quota-and-status-probes §2): `GET /api/alpha/status` lists the models with
// the session's token (refreshed first when it is about to expire, and once
// more after a 401) and answers ready, no_image_model, error or offline;
// `alphaAuth` is the health answer's `alpha.auth`, mirrored in server.json.

/** The probe's budget (contract: 3 s); SVC_ALPHA_STATUS_TIMEOUT_MS overrides it. */
const PROBE_TIMEOUT_MS = 3_000;
/** The vendor's image models: every id of the family starts so. */
export const ALPHA_IMAGE_MODEL_PREFIX = 'alpha-image';

export type AlphaStatus =
  | { readonly status: 'ready' | 'no_image_model'; readonly models: readonly string[] }
  | { readonly status: 'error'; readonly reason: string }
  | { readonly status: 'offline'; readonly reason?: 'login_required' };

const modelsAnswer = lazy(() => z.looseObject({ data: z.array(z.looseObject({ id: z.string() })) }));

/**
 * `GET {base}/models` with a bearer: the model ids. The light authenticated call that also
 * checks a key (a refused key is an UpstreamError with status 400, 401 or 403).
 */
export async function listAlphaModels(
  ctx: LaneEnv,
  bearer: string,
  options: { lane?: 'alpha' | 'alpha-api'; timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<string[]> {
  const lane = options.lane ?? 'alpha';
  const answer = await callUpstream(
    {
      lane,
      url: `${ctx.upstreamUrl(lane)}/models`,
      headers: { authorization: `Bearer ${bearer}`, accept: 'application/json' },
      credentials: [bearer],
      timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
      signal: options.signal,
      parseError: parseAlphaError,
    },
    (response) => readJson(lane, response, modelsAnswer, 4 * 1024 * 1024),
  );
  return answer.data.map((model) => model.id);
}

const probeTimeout = (ctx: LaneEnv): number => {
  const override = Number(ctx.env.SVC_ALPHA_STATUS_TIMEOUT_MS);
  return Number.isFinite(override) && override > 0 ? override : PROBE_TIMEOUT_MS;
};

/** A failure before the models answered, as a probe result. */
function failed(error: unknown): AlphaStatus {
  if (isLoginRequired(error)) return { status: 'offline', reason: 'login_required' };
  if (error instanceof UpstreamError) {
    if (error.failure === 'network' || error.failure === 'timeout') return { status: 'offline' };
    return { status: 'error', reason: error.failure === 'http' ? `HTTP ${error.status}` : error.message };
  }
  if (error instanceof ServiceError) {
    if (error.code === 'NETWORK_FAILED' || error.code === 'UPSTREAM_TIMEOUT') return { status: 'offline' };
    return { status: 'error', reason: error.message };
  }
  throw error;
}

export async function probeAlphaStatus(ctx: LaneEnv): Promise<AlphaStatus> {
  const target = sessionTarget(ctx);
  const timeoutMs = probeTimeout(ctx);
  let session: AlphaSession;
  try {
    session = await freshAlphaSession(target);
  } catch (error) {
    return failed(error);
  }
  let models: string[];
  try {
    try {
      models = await listAlphaModels(ctx, session.accessToken, { timeoutMs });
    } catch (error) {
      if (!(error instanceof UpstreamError && error.failure === 'http' && error.status === 401)) throw error;
      session = await freshAlphaSession(target, { rejected: session.accessToken });
      models = await listAlphaModels(ctx, session.accessToken, { timeoutMs });
    }
  } catch (error) {
    return failed(error);
  }
  return { status: models.some((id) => id.startsWith(ALPHA_IMAGE_MODEL_PREFIX)) ? 'ready' : 'no_image_model', models };
}

/** Whether there is a usable session file (an access token in it). */
export function alphaAuth(ctx: LaneEnv): 'oauth' | 'none' {
  try {
    return readAlphaSession(ctx.sessionFile('alpha')) ? 'oauth' : 'none';
  } catch {
    return 'none';
  }
}

/** What `svc alpha status` shows of the session (never a token). */
export interface AlphaSessionInfo {
  readonly auth: 'oauth' | 'none';
  readonly email?: string;
  /** ISO time the access token expires. */
  readonly expiresAt?: string;
  readonly refreshable: boolean;
  /** Why the file cannot be used, when it exists but cannot. */
  readonly problem?: string;
}

export function alphaSessionInfo(ctx: LaneEnv): AlphaSessionInfo {
  let session: AlphaSession | undefined;
  try {
    session = readAlphaSession(ctx.sessionFile('alpha'));
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { auth: 'none', refreshable: false, problem: error.message };
  }
  if (!session) return { auth: 'none', refreshable: false };
  return {
    auth: 'oauth',
    ...(session.email ? { email: session.email } : {}),
    ...(session.expiresAt !== undefined ? { expiresAt: new Date(session.expiresAt).toISOString() } : {}),
    refreshable: Boolean(session.refreshToken),
  };
}

/**
 * After a login or a logout through this studio: server.json says `alpha.auth` as it is now.
 * Only our own descriptor is rewritten (same process, same start).
 */
export function noteAlphaSessionChanged(ctx: LaneEnv): void {
  const descriptor = readDescriptor(ctx.paths.descriptorFile);
  if (!descriptor || descriptor.pid !== process.pid || descriptor.startedAt !== ctx.startedAt) return;
  writeDescriptor(ctx.paths.descriptorFile, { ...descriptor, alpha: { auth: alphaAuth(ctx) } });
}
