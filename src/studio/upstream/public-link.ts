import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Which hosts the studio fetches a vendor's result link from: https on a
// public address (every special-purpose range that is not globally reachable
// refused after resolving the name, see INTERNAL), or the lane's own configured
// origin (how the simulators' links qualify). One rule for every lane that
// downloads a link: alpha's images and videos, the MCP lanes' results, a
// remote video to extend.

const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * The special-purpose ranges that are not globally reachable (IANA's IPv4 and IPv6 Special-Purpose
 * Address Registries), and the deprecated ones that route to somewhere else: this host, private
 * networks, shared (CGNAT), link-local, documentation, benchmarking, multicast and reserved space;
 * in IPv6 also the discard prefix, the IETF protocol block (Teredo among it), 6to4, SRv6 SIDs,
 * unique-local and site-local space. IPv6 forms that carry an IPv4 address (mapped, compatible,
 * NAT64) are judged by that address (below).
 */
const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  // Multicast (224/4), reserved (240/4) and broadcast.
  ['224.0.0.0', 3],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(network, prefix, 'ipv6');
}

/** An IPv6 address's eight 16-bit groups (a dotted IPv4 tail read as the last two), or undefined when it is not one. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const bytes = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((bytes[0] << 8) | bytes[1]).toString(16)}:${((bytes[2] << 8) | bytes[3]).toString(16)}`;
  }
  const [head, tail, ...rest] = text.split('::');
  if (rest.length > 0) return undefined;
  const part = (side: string | undefined) => (side ? side.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/** The IPv4 address an IPv6 one carries: IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d). */
function embeddedIpv4(groups: readonly number[]): string | undefined {
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  const nat64 = groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0);
  if (!mapped && !nat64) return undefined;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** Whether an address is not on the public internet (one that carries an IPv4 address is judged by it). */
export function isInternalAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return INTERNAL.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const ipv4 = embeddedIpv4(groups);
  if (ipv4 !== undefined) return INTERNAL.check(ipv4, 'ipv4');
  return INTERNAL.check(groups.map((group) => group.toString(16)).join(':'), 'ipv6');
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

/**
 * A link as an error message names it: origin and path, never the query (signed links carry
 * tokens); a link without an origin (`file:`, `data:`, `blob:`) by its scheme only, never "null".
 */
export function linkForMessage(url: URL): string {
  if (url.origin === 'null') return `a ${url.protocol.replace(/:$/, '')}: link`.slice(0, 200);
  return `${url.origin}${url.pathname}`.slice(0, 200);
}

/** Why a result link is not fetched (and whether asking again may help), or undefined when it may be. */
export async function linkRefusal(
  url: URL,
  ownOrigin: string | undefined,
): Promise<{ readonly reason: string; readonly retryable: boolean } | undefined> {
  if (url.username || url.password) return { reason: 'it carries credentials', retryable: false };
  if (ownOrigin !== undefined && url.origin === ownOrigin) return undefined;
  if (url.protocol !== 'https:') return { reason: "only https, or the lane's own origin, is fetched", retryable: false };
  let addresses: string[];
  try {
    addresses = await addressesOf(url.hostname);
  } catch (error) {
    return { reason: `its host does not resolve (${(error as Error).message})`, retryable: true };
  }
  if (addresses.length === 0 || addresses.some(isInternalAddress))
    return { reason: 'it is on an internal address; only public ones are fetched', retryable: false };
  return undefined;
}
