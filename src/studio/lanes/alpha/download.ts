import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ServiceError } from '../../../common/errors.js';
import { sniffImageType } from '../../media/image-type.js';
import { callUpstream, readBytes } from '../../upstream/index.js';
import type { LaneImage } from '../types.js';
import type { AlphaCall } from './call.js';

// A result the vendor gave as a link (contract §2: a plain temporary URL,
// fetched without auth, promptly). Fetched only when it is https on a public
// address, or on the lane's own configured origin (how the simulator's links
// qualify); never with the credential, never following a redirect (the
// upstream client refuses them), at most 50 MiB, and only kept when its bytes
// sniff as PNG, JPEG or WebP (the name's extension says nothing). Errors name
// the link's origin and path, never its query (signed links carry tokens).

export const ALPHA_OUTPUT_MAX_BYTES = 50 * 1024 * 1024;
const LOOKUP_TIMEOUT_MS = 5_000;

/** Loopback, private, link-local, carrier-grade NAT, multicast and reserved ranges. */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

/** Whether an address is not on the public internet (an IPv4-mapped IPv6 address is judged as IPv4). */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const where = (url: URL): string => `${url.origin}${url.pathname}`.slice(0, 200);

const refused = (lane: string, message: string, details: Record<string, unknown> = {}): ServiceError =>
  new ServiceError('ALPHA_OUTPUT_DOWNLOAD_FAILED', message, { details: { lane, step: 'download', retryable: false, ...details } });

/** The addresses a host name stands for (an IP literal is itself). */
async function addressesOf(hostname: string): Promise<string[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return [bare];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('the name did not resolve in time')), LOOKUP_TIMEOUT_MS);
  });
  try {
    return (await Promise.race([lookup(bare, { all: true }), timeout])).map((entry) => entry.address);
  } finally {
    clearTimeout(timer);
  }
}

/** The link checked: https on a public address, or the lane's own origin. */
export async function checkedLink(call: AlphaCall, link: string, ownOrigin: string): Promise<URL> {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw refused(call.lane, `${call.lane} gave an image link that is not a URL.`);
  }
  if (url.username || url.password) throw refused(call.lane, `${call.lane} gave an image link with credentials in it.`, { output: where(url) });
  if (url.origin === ownOrigin) return url;
  if (url.protocol !== 'https:') throw refused(call.lane, `${call.lane} gave an image link the studio does not fetch (${where(url)}): only https, or the lane's own origin.`, { output: where(url) });
  let addresses: string[];
  try {
    addresses = await addressesOf(url.hostname);
  } catch (error) {
    throw refused(call.lane, `The ${call.lane} image link's host does not resolve (${(error as Error).message}).`, { output: where(url), retryable: true });
  }
  if (addresses.some(isInternalAddress)) throw refused(call.lane, `${call.lane} gave an image link on an internal address (${where(url)}); the studio fetches only public ones.`, { output: where(url) });
  return url;
}

export async function downloadImage(call: AlphaCall, link: string, ownOrigin: string): Promise<LaneImage> {
  const url = await checkedLink(call, link, ownOrigin);
  let bytes: Buffer;
  try {
    bytes = await callUpstream({ lane: call.lane, url: url.href, timeoutMs: call.remainingMs(), signal: call.signal }, (response) => readBytes(call.lane, response, ALPHA_OUTPUT_MAX_BYTES));
  } catch (error) {
    throw call.fail(error, 'download');
  }
  const format = sniffImageType(bytes);
  if (!format) throw refused(call.lane, `The ${call.lane} image link (${where(url)}) did not serve a PNG, JPEG or WebP image.`, { output: where(url) });
  return { bytes, format };
}
