import type { HeaderReader } from './transport.js';

/** `retry-after-ms`, `retry-after` (seconds or HTTP date), or "try again in 1.2s / 300ms" in a message; in whole seconds. */
export function retryAfterSeconds(headers: HeaderReader | undefined, message: string | undefined, now = Date.now()): number | undefined {
  const msHeader = headers?.get('retry-after-ms');
  const ms = Number(msHeader);
  if (msHeader && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
  const header = headers?.get('retry-after');
  if (header) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, Math.ceil((date - now) / 1000));
  }
  const match = message ? /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message) : null;
  if (match) return Math.ceil(Number(match[1]) / (match[2].toLowerCase() === 'ms' ? 1000 : 1));
  return undefined;
}
