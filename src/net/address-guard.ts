import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Addresses a hosted scanner must never reach: loopback, private, link-local (cloud metadata),
 * carrier-grade NAT, unspecified, multicast and reserved ranges, in IPv4 and IPv6 (including
 * IPv4-mapped IPv6).
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** True when `ip` is a public unicast address a hosted scanner may connect to. */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return isPublicAddress(mapped[1]);
    return !blocked.check(ip, 'ipv6');
  }
  return !blocked.check(ip, 'ipv4');
}

export class BlockedAddressError extends Error {
  readonly code = 'EADDRBLOCKED';
  constructor(host: string, address: string) {
    super(`refusing to connect to ${host} (${address}): not a public address`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` replacement for socket connects: resolves as usual, then refuses every
 * non-public answer. Used at connect time so DNS rebinding between submit and connect cannot
 * slip through. With `allowPrivate` it is plain `dns.lookup`.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses as LookupAddress[];
      if (!allowPrivate) {
        const bad = list.find((a) => !isPublicAddress(a.address));
        if (bad) return callback(new BlockedAddressError(hostname, bad.address) as NodeJS.ErrnoException, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      const first = list[0];
      callback(null, first.address, first.family);
    });
  };
}

/** The first non-public address `hostname` resolves to (or is), else undefined. DNS failures reject. */
export async function firstNonPublicAddress(hostname: string): Promise<string | undefined> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return isPublicAddress(host) ? undefined : host;
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true }, (err, list) => (err ? reject(err) : resolve(list))));
  return addresses.find((a) => !isPublicAddress(a.address))?.address;
}
