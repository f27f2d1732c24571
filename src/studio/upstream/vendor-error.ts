import { maskCredentials, maskSecrets } from '../../common/secrets.js';
import type { VendorError } from './upstream-error.js';

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * Reads the error bodies vendors commonly send: `{error:{code,type,message}}`,
 * `{error:"code"}`, `{code, message}`, `{detail}`; anything else becomes the
 * start of the text. Lanes with another envelope pass their own parser.
 */
export function parseVendorError(body: string): VendorError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { message: body.slice(0, 200) || undefined };
  }
  const root = asRecord(parsed);
  if (!root) return {};
  const error = asRecord(root.error);
  const code = text(error?.code) ?? text(error?.status) ?? (typeof root.error === 'string' ? root.error : undefined) ?? text(root.code);
  const type = text(error?.type);
  const message = text(error?.message) ?? text(root.detail) ?? text(root.message);
  const resets = error?.resets_in_seconds ?? root.resets_in_seconds;
  return { code, type, message, retryAfterSeconds: typeof resets === 'number' ? resets : undefined };
}

/** A vendor code or type we keep as one: a short token. Anything longer, or with spaces, is text. */
const SHORT_TOKEN = /^[\w.:/-]{1,64}$/;
/** The most of a vendor's text we keep. */
const VENDOR_TEXT_MAX_CHARS = 300;

/**
 * The one gate for what a vendor said (UpstreamError passes every vendor error
 * through it): each field masked of the credentials we hold and the ones the
 * call sent, in every spelling; the message also of anything credential-shaped.
 * A code or type that is not a short token, or that carried a credential, is
 * text: it joins the message instead of standing as a code someone might match
 * on. A short token is not judged by its shape: vendors' own ids are long
 * (a quota id like `GenerateRequestsPerDayPerProjectPerModel-FreeTier`).
 */
export function maskVendorError(vendor: VendorError, credentials: readonly (string | undefined)[] = []): VendorError {
  const texts: string[] = [];
  const token = (value: string | undefined): string | undefined => {
    if (value === undefined) return undefined;
    if (SHORT_TOKEN.test(value) && maskCredentials(value, credentials) === value) return value;
    texts.push(maskSecrets(value, credentials));
    return undefined;
  };
  const code = token(vendor.code);
  const type = token(vendor.type);
  const said = new Set(
    [vendor.message === undefined ? '' : maskSecrets(vendor.message, credentials), ...texts].filter((text) => text !== ''),
  );
  const message = said.size > 0 ? [...said].join('; ').slice(0, VENDOR_TEXT_MAX_CHARS) : undefined;
  return { code, type, message, retryAfterSeconds: vendor.retryAfterSeconds };
}
