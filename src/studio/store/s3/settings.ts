import { isIP } from 'node:net';
import { ServiceError } from '../../errors.js';

// Where an S3-compatible asset store is and how to reach it, from the studio's environment:
// `SVC_ASSET_STORE=s3://bucket/prefix` and the usual AWS variables. Read from the env object the
// studio was given (never process.env), so a test's env is the whole truth. No message here echoes
// a value that could hold a credential.

export const ASSET_STORE_ENV = 'SVC_ASSET_STORE';
export const FORCE_PATH_STYLE_ENV = 'SVC_S3_FORCE_PATH_STYLE';

/** A bucket and a key prefix (no slash at either end; empty for the bucket's root). */
export interface AssetStoreLocation {
  readonly bucket: string;
  readonly prefix: string;
}

export interface S3Credentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface S3Settings extends AssetStoreLocation {
  /** The server's URL; undefined for AWS itself (the SDK derives it from the region). */
  readonly endpoint?: string;
  readonly region: string;
  /** Undefined: the SDK's own chain finds them (an instance role, a profile). */
  readonly credentials?: S3Credentials;
  /** Path-style addressing (`endpoint/bucket/key`) rather than a bucket's own host name. */
  readonly forcePathStyle: boolean;
}

/** S3's rule for bucket names (AWS, MinIO, R2 and Ceph agree): 3 to 63 of a-z, 0-9, `.`, `-`, a letter or digit at each end. */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A prefix segment: S3's safe characters for keys. */
const PREFIX_SEGMENT = /^[A-Za-z0-9!_.*'()-]+$/;
/** Room left in S3's 1024-byte keys for `/<space>/<name>`. */
const PREFIX_MAX_LENGTH = 512;
/** When no region is set: S3-compatible servers take any, and AWS answers with the bucket's own. */
const DEFAULT_REGION = 'us-east-1';

const invalid = (variable: string, message: string): ServiceError =>
  new ServiceError('INVALID_SETTING', `${variable}: ${message}`, { details: { variable } });

/** Short printable text to echo in a message; anything else is left out. */
const echo = (text: string): string => (/^[\x20-\x7e]{1,80}$/.test(text) ? ` ("${text}")` : '');

/** Parses `s3://bucket/prefix`; throws INVALID_SETTING saying what is wrong. */
export function parseAssetStoreUrl(value: string, variable = ASSET_STORE_ENV): AssetStoreLocation {
  const form = 'expected s3://<bucket>/<prefix>, e.g. s3://my-bucket/studio';
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(value)?.[1];
  if (scheme?.toLowerCase() !== 's3') {
    const named = scheme && scheme.length <= 20 ? ` (${scheme}://)` : '';
    throw invalid(variable, `not an s3:// URL${named}; ${form}.`);
  }
  const rest = value.slice('s3://'.length);
  if (/[?#]/.test(rest)) throw invalid(variable, `an s3:// URL has no query or fragment; ${form}.`);
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  // Keys in the URL would end up in logs and `ps`: they come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
  if (bucket.includes('@'))
    throw invalid(variable, 'the URL must not hold credentials: they come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.');
  if (bucket === '') throw invalid(variable, `no bucket named; ${form}.`);
  if (!BUCKET.test(bucket) || bucket.includes('..') || isIP(bucket) !== 0)
    throw invalid(
      variable,
      `the bucket${echo(bucket)} is not a valid S3 bucket name (3 to 63 lower-case letters, digits, dots and hyphens, a letter or digit at each end).`,
    );
  const prefix = slash === -1 ? '' : rest.slice(slash + 1).replace(/\/$/, '');
  if (prefix.length > PREFIX_MAX_LENGTH) throw invalid(variable, `the prefix is longer than ${PREFIX_MAX_LENGTH} characters.`);
  for (const segment of prefix === '' ? [] : prefix.split('/')) {
    if (segment === '' || segment === '.' || segment === '..' || !PREFIX_SEGMENT.test(segment))
      throw invalid(
        variable,
        `the prefix${echo(prefix)} is not valid: segments between single slashes, of letters, digits and !_.*'()- , never "." or "..".`,
      );
  }
  return { bucket, prefix };
}

/** Whether a client must address the bucket by path: an IP address or localhost has no per-bucket host names. */
export function needsPathStyle(endpoint: string): boolean {
  const host = new URL(endpoint).hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) !== 0 || host === 'localhost' || host.endsWith('.localhost');
}

function endpointOf(env: NodeJS.ProcessEnv): string | undefined {
  const variable = env.AWS_ENDPOINT_URL_S3 ? 'AWS_ENDPOINT_URL_S3' : env.AWS_ENDPOINT_URL ? 'AWS_ENDPOINT_URL' : undefined;
  if (!variable) return undefined;
  let url: URL;
  try {
    url = new URL(env[variable] as string);
  } catch {
    throw invalid(variable, 'not a URL; expected http(s)://host[:port].');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid(variable, 'expected an http:// or https:// URL.');
  if (url.username || url.password)
    throw invalid(variable, 'the URL must not hold credentials: they come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.');
  return url.href.replace(/\/$/, '');
}

function credentialsOf(env: NodeJS.ProcessEnv): S3Credentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId && !secretAccessKey) return undefined;
  if (!accessKeyId || !secretAccessKey)
    throw invalid(accessKeyId ? 'AWS_SECRET_ACCESS_KEY' : 'AWS_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together.');
  return { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) };
}

/** The S3 asset store the environment asks for; undefined when SVC_ASSET_STORE is unset (the local files). */
export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const value = env[ASSET_STORE_ENV]?.trim();
  if (!value) return undefined;
  const endpoint = endpointOf(env);
  const forced = env[FORCE_PATH_STYLE_ENV] === '1' || env[FORCE_PATH_STYLE_ENV] === 'true';
  return {
    ...parseAssetStoreUrl(value),
    ...(endpoint ? { endpoint } : {}),
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || DEFAULT_REGION,
    credentials: credentialsOf(env),
    forcePathStyle: forced || (endpoint !== undefined && needsPathStyle(endpoint)),
  };
}
