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
