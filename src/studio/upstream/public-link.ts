import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Which hosts the studio fetches a vendor's result link from: https on a
// public address (loopback, private, link-local, CGNAT, multicast and reserved
// ranges refused after resolving the name), or the lane's own configured
// origin (how the simulators' links qualify). One rule for every lane that
// downloads a link: alpha's images and videos, the MCP lanes' results, a
// remote video to extend.

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
function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return INTERNAL.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return INTERNAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

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

/** Why a result link is not fetched (and whether asking again may help), or undefined when it may be. */
export async function linkRefusal(url: URL, ownOrigin: string | undefined): Promise<{ readonly reason: string; readonly retryable: boolean } | undefined> {
  if (url.username || url.password) return { reason: 'it carries credentials', retryable: false };
  if (ownOrigin !== undefined && url.origin === ownOrigin) return undefined;
  if (url.protocol !== 'https:') return { reason: "only https, or the lane's own origin, is fetched", retryable: false };
  let addresses: string[];
  try {
    addresses = await addressesOf(url.hostname);
  } catch (error) {
    return { reason: `its host does not resolve (${(error as Error).message})`, retryable: true };
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress)) return { reason: 'it is on an internal address; only public ones are fetched', retryable: false };
  return undefined;
}
