import { ServiceError } from '../errors.js';
import { maskSecrets } from '../../common/secrets.js';
import { maskVendorError } from './vendor-error.js';

// The one type of upstream failure, classified by one status table. A lane
// maps it to the spec's codes (its own or the generic ones); whatever it does
// not map gets the generic mapping of `toServiceError`.

/**
 * How the call failed: an HTTP error answer, an error the vendor reported inside
 * a successful answer (a stream's error event), the transport, our time budget,
 * or a body that is not what the protocol says.
 */
export type UpstreamFailure = 'http' | 'vendor' | 'network' | 'timeout' | 'protocol';

/** What an HTTP error status means, whatever the vendor. */
export type StatusClass =
  | 'bad_request'
  | 'auth'
  | 'payment'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'unprocessable'
  | 'rate_limited'
  | 'timeout'
  | 'server'
  | 'other';

const STATUS_TABLE: Readonly<Record<number, { class: StatusClass; retryable: boolean }>> = {
  400: { class: 'bad_request', retryable: false },
  401: { class: 'auth', retryable: false },
  402: { class: 'payment', retryable: false },
  403: { class: 'forbidden', retryable: false },
  404: { class: 'not_found', retryable: false },
  408: { class: 'timeout', retryable: true },
  409: { class: 'conflict', retryable: false },
  413: { class: 'too_large', retryable: false },
  422: { class: 'unprocessable', retryable: false },
  429: { class: 'rate_limited', retryable: true },
  500: { class: 'server', retryable: true },
  502: { class: 'server', retryable: true },
  503: { class: 'server', retryable: true },
  504: { class: 'timeout', retryable: true },
};

export function classifyStatus(status: number): { class: StatusClass; retryable: boolean } {
  return STATUS_TABLE[status] ?? (status >= 500 ? { class: 'server', retryable: true } : { class: 'other', retryable: false });
}

/** The error object as a vendor sent it, in whatever spelling its parser understood. */
export interface VendorError {
  readonly code?: string;
  readonly type?: string;
  readonly message?: string;
  /** Seconds until a retry makes sense, when the body says (headers are read by the client). */
  readonly retryAfterSeconds?: number;
}

export interface UpstreamErrorInit extends VendorError {
  readonly lane: string;
  readonly failure: UpstreamFailure;
  readonly status?: number;
  /** connect: no answer yet; stream: the answer broke off. */
  readonly stage?: 'connect' | 'stream';
  readonly timeoutMs?: number;
  /** Transport failures: the system's reason (ECONNREFUSED, ...). */
  readonly reason?: string;
  readonly cause?: unknown;
  /** Whether asking again may help, when the failure itself says (a redirect is not transient); else from the status or failure kind. */
  readonly retryable?: boolean;
  /** The credentials the call sent: masked, with every credential the studio holds, out of everything above (never kept). */
  readonly credentials?: readonly (string | undefined)[];
}

export class UpstreamError extends Error {
  readonly lane: string;
  readonly failure: UpstreamFailure;
  readonly status?: number;
  readonly statusClass?: StatusClass;
  readonly retryable: boolean;
  readonly vendorCode?: string;
  readonly vendorType?: string;
  /** Already masked (it may echo what we sent). */
  readonly vendorMessage?: string;
  readonly retryAfterSeconds?: number;
  readonly stage?: 'connect' | 'stream';
  readonly timeoutMs?: number;
  readonly reason?: string;

  /** What it was built from, masked (a copy of this error masks it again with more credentials). */
  private readonly init: UpstreamErrorInit;

  constructor(message: string, init: UpstreamErrorInit) {
    // Everything the vendor said passes the one gate before anything is kept; the raw text is not kept at all.
    const { credentials, ...rest } = init;
    super(maskSecrets(message, credentials), { cause: init.cause });
    const said = maskVendorError(rest, credentials);
    init = {
      ...rest,
      code: said.code,
      type: said.type,
      message: said.message,
      reason: rest.reason === undefined ? undefined : maskSecrets(rest.reason, credentials),
    };
    this.init = init;
    this.name = 'UpstreamError';
    this.lane = init.lane;
    this.failure = init.failure;
    this.status = init.status;
    const classified = init.status === undefined ? undefined : classifyStatus(init.status);
    this.statusClass = classified?.class;
    this.retryable = init.retryable ?? classified?.retryable ?? (init.failure === 'network' || init.failure === 'timeout');
    this.vendorCode = init.code;
    this.vendorType = init.type;
    this.vendorMessage = init.message;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.stage = init.stage;
    this.timeoutMs = init.timeoutMs;
    this.reason = init.reason;
  }

  /** This error with the credentials a call sent masked out of everything it says. */
  withSecretsMasked(credentials: readonly (string | undefined)[]): UpstreamError {
    return new UpstreamError(this.message, { ...this.init, credentials });
  }

  /** What the answer's `details` say of the upstream (never anything that could carry a credential). */
  details(): Record<string, unknown> {
    const details: Record<string, unknown> = { lane: this.lane };
    if (this.status !== undefined) details.upstreamStatus = this.status;
    if (this.vendorCode) details.upstreamCode = this.vendorCode;
    if (this.vendorType) details.upstreamType = this.vendorType;
    if (this.vendorMessage) details.upstreamMessage = this.vendorMessage;
    if (this.retryAfterSeconds !== undefined) details.retryAfterSeconds = this.retryAfterSeconds;
    if (this.stage) details.stage = this.stage;
    if (this.timeoutMs !== undefined) details.timeoutMs = this.timeoutMs;
    if (this.reason) details.reason = this.reason;
    return details;
  }

  /** A ServiceError with `code`, carrying these details (and Retry-After when known). */
  as(code: ServiceError['code'], message: string = this.message): ServiceError {
    const headers =
      this.retryAfterSeconds !== undefined && ERROR_STATUS_RATE.has(code) ? { 'Retry-After': String(this.retryAfterSeconds) } : undefined;
    return new ServiceError(code, maskSecrets(message), { details: this.details(), headers, cause: this });
  }

  /** The generic mapping, for whatever a lane leaves unmapped. */
  toServiceError(): ServiceError {
    const said = this.vendorMessage ? `: ${this.vendorMessage}` : '.';
    switch (this.failure) {
      case 'network':
        return this.as('NETWORK_FAILED');
      case 'timeout':
        return this.as('UPSTREAM_TIMEOUT');
      case 'protocol':
        return this.as('UPSTREAM_PROTOCOL_ERROR');
      case 'vendor':
        return this.as('UPSTREAM_FAILED', `The upstream reported a failure${said}`);
      case 'http':
        if (this.statusClass === 'rate_limited') return this.as('RATE_LIMITED', `The upstream rate limit was reached${said}`);
        if (this.statusClass === 'timeout') return this.as('UPSTREAM_TIMEOUT', `The upstream timed out (${this.status}).`);
        return this.as(
          'UPSTREAM_FAILED',
          `The upstream ${this.statusClass === 'server' ? 'failed' : 'rejected the request'} (${this.status})${said}`,
        );
    }
  }
}

/** Codes whose answers carry Retry-After (HTTP 429). */
const ERROR_STATUS_RATE = new Set<ServiceError['code']>([
  'RATE_LIMITED',
  'ALPHA_RATE_LIMITED',
  'BETA_API_RATE_LIMITED',
  'CLIGEN_QUOTA_EXHAUSTED',
]);
