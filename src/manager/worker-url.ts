import { ServiceError } from './errors.js';
import { isLoopbackName } from '../common/http-security.js';

/**
 * A worker's base URL, normalized to its origin (`http://127.0.0.1:3344`).
 * Only plain http on a loopback name with an explicit port is followed: the
 * manager reads a fixed set of chat-server paths from it and is never a proxy
 * to an arbitrary host.
 */
export function workerOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ServiceError('INSTANCE_URL_NOT_ALLOWED', `Not a URL: ${raw.slice(0, 200)}`);
  }
  const refuse = (why: string) => new ServiceError('INSTANCE_URL_NOT_ALLOWED', `${url.origin}: ${why}`, { details: { url: url.origin } });
  if (url.protocol !== 'http:') throw refuse('only http is followed');
  if (!isLoopbackName(url.hostname.toLowerCase())) throw refuse('only loopback hosts are followed');
  if (url.username || url.password) throw refuse('credentials in the URL are refused (send a token instead)');
  if (url.pathname !== '/' || url.search || url.hash) throw refuse('give the server’s base URL, without a path');
  if (!url.port) throw refuse('give the port explicitly');
  return url.origin;
}
