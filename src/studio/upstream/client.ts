import { abortable } from '../../common/abortable.js';
import { ServiceError } from '../errors.js';
import { maskCredentials } from '../../common/secrets.js';
import { retryAfterSeconds } from './retry-after.js';
import { exchange, type Exchange, type UpstreamResponse } from './transport.js';
import { UpstreamError, type VendorError } from './upstream-error.js';
import { parseVendorError } from './vendor-error.js';

// The one upstream HTTP client. Every lane call goes through `callUpstream`,
// which owns what each call needs and none should write twice: the time
// budget (the whole call, reading the body included), linking the job's
// cancel to the request (the call ends by either, whatever the transport
// does), no redirects, bounded error bodies, Retry-After, classification into
// UpstreamError, and masking the credentials the call sent (with every one the
// studio holds, in every spelling) out of anything it reports. It never
// retries: a retry of a billable call could bill twice, so retrying is the
// lane's explicit decision.

export interface UpstreamRequest {
  /** Who calls (named in errors). */
  readonly lane: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Blob | FormData;
  /** The credential(s) sent; masked verbatim in anything reported. */
  readonly credentials?: readonly (string | undefined)[];
  /** Budget for the whole call, the body read included. */
  readonly timeoutMs: number;
  /** The job's signal: its abort cancels the call and its reason is what the call throws. */
  readonly signal?: AbortSignal;
  /** Reads a vendor error body (default: the common shapes). */
  readonly parseError?: (body: string, status: number) => VendorError;
}

/** Largest error body read (the rest is not needed to classify it). */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

async function readBounded(response: UpstreamResponse, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size >= maxBytes) break;
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, maxBytes);
}

const transportReason = (error: unknown): string => {
  const { code, message, cause } = (error ?? {}) as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return code ?? cause?.code ?? cause?.message ?? message ?? 'unknown';
};

/**
 * Sends one request and hands the successful response to `read`, under the
 * call's budget and cancel. An error answer throws an UpstreamError (`http`)
 * before `read` runs. Whatever `read` throws is passed on, except that a
 * cancelled job throws its signal's reason, a spent budget throws `timeout`,
 * and a transport failure throws `network`.
 */
export async function callUpstream<T>(
  request: UpstreamRequest,
  read: (response: UpstreamResponse, signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { lane, signal: jobSignal } = request;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
  const onJobAbort = () => controller.abort();
  jobSignal?.addEventListener('abort', onJobAbort, { once: true });
  if (jobSignal?.aborted) controller.abort();

  // Why the call failed, in our terms; the cancel and the budget win over the transport's view.
  const failure = (error: unknown, stage: 'connect' | 'stream'): Error => {
    if (jobSignal?.aborted) return jobSignal.reason instanceof Error ? jobSignal.reason : new ServiceError('JOB_CANCELLED');
    if (timedOut) {
      return new UpstreamError(`The upstream did not finish within ${Math.round(request.timeoutMs / 1000)} s.`, {
        lane,
        failure: 'timeout',
        stage,
        timeoutMs: request.timeoutMs,
        cause: error,
      });
    }
    if (error instanceof UpstreamError || error instanceof ServiceError) return error;
    const reason = transportReason(error);
    const message =
      stage === 'connect'
        ? `Could not reach the upstream (${reason}). Check the network, proxy, VPN or firewall.`
        : `The upstream connection broke before the response completed (${reason}).`;
    return new UpstreamError(message, { lane, failure: 'network', stage, reason, cause: error });
  };

  let sent: Exchange | undefined;
  try {
    try {
      const method = request.method ?? (request.body === undefined ? 'GET' : 'POST');
      sent = await abortable(
        exchange({ url: request.url, method, headers: request.headers, body: request.body, signal: controller.signal }),
        controller.signal,
      );
    } catch (error) {
      throw failure(error, 'connect');
    }
    const { response } = sent;
    if (response.status >= 300 && response.status < 400) {
      // Not a hop to somewhere unchecked: a transport failure of this call, said as what it is.
      const reason = `a redirect (${response.status}), never followed`;
      // Asking again gets the same redirect: it fails the call at once, never retried until the deadline.
      throw new UpstreamError(`The upstream answered with ${reason}.`, {
        lane,
        failure: 'network',
        stage: 'connect',
        reason,
        retryable: false,
      });
    }
    if (!response.ok) {
      let body = '';
      try {
        body = await abortable(readBounded(response, ERROR_BODY_MAX_BYTES), controller.signal);
      } catch (error) {
        throw failure(error, 'stream');
      }
      // Credentials go before a parser reads the body: a parser that cuts the text could cut one in two, and half a key is not masked.
      const vendor = (request.parseError ?? parseVendorError)(maskCredentials(body, request.credentials), response.status);
      throw new UpstreamError(`The upstream answered ${response.status}${vendor.message ? `: ${vendor.message}` : '.'}`, {
        lane,
        failure: 'http',
        status: response.status,
        ...vendor,
        retryAfterSeconds: retryAfterSeconds(response.headers, vendor.message) ?? vendor.retryAfterSeconds,
        credentials: request.credentials,
      });
    }
    try {
      return await abortable(read(response, controller.signal), controller.signal);
    } catch (error) {
      throw failure(error, 'stream');
    }
  } catch (error) {
    throw masked(error, request.credentials ?? []);
  } finally {
    clearTimeout(timer);
    jobSignal?.removeEventListener('abort', onJobAbort);
    sent?.release();
  }
}

/** An error with the sent credentials (and credential-shaped text) masked out of what it says. */
function masked(error: unknown, credentials: readonly (string | undefined)[]): unknown {
  if (error instanceof ServiceError) return error.withSecretsMasked(credentials);
  if (error instanceof UpstreamError) return error.withSecretsMasked(credentials);
  return error;
}
