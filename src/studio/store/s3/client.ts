import { S3Client } from '@aws-sdk/client-s3';
import { maskCredentials } from '../../../common/secrets.js';
import { ServiceError } from '../../errors.js';
import type { S3Settings } from './settings.js';

// The S3 client of the asset store, and what its failures become: the studio's errors, which
// never carry the SDK's request details.

/** A new connection waits this long; a request this long without a byte (an upload of a large video still moves bytes). */
const CONNECT_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 60_000;

/**
 * The SDK warns, on every process start under Node < 22, that its releases after January 2027
 * will need Node 22: nothing a user of the studio can act on (the studio pins the SDK), so it is
 * kept out of the studio's output. The SDK checks this one variable of process.env while a client
 * is built, and once per process; other warnings are untouched.
 */
const NODE_VERSION_WARNING_OFF = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';

export function newS3Client(settings: S3Settings): S3Client {
  const before = process.env[NODE_VERSION_WARNING_OFF];
  process.env[NODE_VERSION_WARNING_OFF] = 'true';
  try {
    return new S3Client({
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      region: settings.region,
      ...(settings.credentials ? { credentials: settings.credentials } : {}),
      forcePathStyle: settings.forcePathStyle,
      // The SDK's default since 3.729 adds CRC checksums to every upload (and validates them on
      // downloads); S3-compatible servers that predate them (s3rver, older MinIO and Ceph) refuse
      // such uploads. Only operations that require a checksum send one; uploads carry Content-MD5,
      // which every S3 server checks.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: IDLE_TIMEOUT_MS },
    });
  } finally {
    if (before === undefined) delete process.env[NODE_VERSION_WARNING_OFF];
    else process.env[NODE_VERSION_WARNING_OFF] = before;
  }
}

/** What the SDK's errors say about themselves (a service error, or a network one). */
interface SdkFailure {
  readonly name?: string;
  readonly code?: string;
  readonly Code?: string;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/** The HTTP status of a failed request; undefined when no answer came. */
export const statusOf = (error: unknown): number | undefined => (error as SdkFailure | null)?.$metadata?.httpStatusCode;

/** The S3 error code (NoSuchKey, AccessDenied, …) or the network error's (ECONNREFUSED, …), never its message. */
function codeOf(error: unknown): string {
  const failure = (error ?? {}) as SdkFailure;
  const code = failure.Code ?? failure.code ?? failure.name ?? 'Error';
  return /^[A-Za-z0-9_.-]{1,64}$/.test(code) ? code : 'Error';
}

/** Answers of servers whose disk or quota is full. */
const FULL = new Set(['XMinioStorageFull', 'QuotaExceeded', 'StorageFull']);

/**
 * The studio's error for a failed request: the store, the operation and the key, the S3 code and the
 * HTTP status. The SDK's message and request are left out (they may carry request details); what
 * is kept is masked for the store's own credentials as well.
 */
export function storeFailure(error: unknown, settings: S3Settings, operation: string, key?: string): ServiceError {
  const store = `s3://${settings.bucket}${settings.prefix ? `/${settings.prefix}` : ''}`;
  const code = codeOf(error);
  const status = statusOf(error);
  const known = [settings.credentials?.accessKeyId, settings.credentials?.secretAccessKey, settings.credentials?.sessionToken];
  const details = { store, operation, ...(key ? { key } : {}), s3Code: code, ...(status ? { httpStatus: status } : {}) };
  const at = `${operation}${key ? ` ${key}` : ''}`;
  if (FULL.has(code)) {
    return new ServiceError(
      'STORAGE_FULL',
      maskCredentials(
        `The asset store ${store} is full (${code} on ${at}): free room there and try again. Reading works meanwhile.`,
        known,
      ),
      { details },
    );
  }
  const answer = status ? `${code}, HTTP ${status}` : code;
  return new ServiceError('SERVICE_UNAVAILABLE', maskCredentials(`The asset store ${store} failed on ${at} (${answer}).`, known), {
    details,
  });
}
