import { randomBytes } from 'node:crypto';

/** `20260101T000000123Z-a1b2c3d4`: sorts by start time, safe as a file name. */
export const TRACE_ID_PATTERN = /^[0-9]{8}T[0-9]{9}Z-[0-9a-f]{8}$/;

export function newTraceId(now = new Date()): string {
  return `${now.toISOString().replace(/[-:.]/g, '')}-${randomBytes(4).toString('hex')}`;
}

export const isTraceId = (value: string): boolean => TRACE_ID_PATTERN.test(value);

/** The start time encoded in an id. */
export function traceStartedAt(traceId: string): string {
  const [, y, mo, d, h, mi, s, ms] = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\d{3})Z/.exec(traceId) ?? [];
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`;
}
