/**
 * Which IP addresses are public. Everything a script must not reach through a host-side
 * connector by default is listed here: loopback, private and shared networks, link-local
 * (cloud metadata services live at 169.254.169.254), multicast, documentation and reserved
 * ranges, and the IPv6 ranges that embed or tunnel to an IPv4 address (NAT64, 6to4, Teredo),
 * since their IPv4 part could be private. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) are
 * judged by their IPv4 address.
 *
 * The list uses `node:net`'s `BlockList`, which parses every IPv6 spelling and maps
 * `::ffff:a.b.c.d` to IPv4 itself; parsing addresses by hand is where such checks go wrong.
 *
 * @module
 */
import { BlockList, isIP } from "node:net";

/** IPv4 ranges that are not the public internet (IANA special-purpose registry). */
const IPV4_NON_PUBLIC: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network"; 0.0.0.0 reaches the local host
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT, shared
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and 255.255.255.255 broadcast
];

/** IPv6 ranges that are not the public internet, or that tunnel to an IPv4 address. */
const IPV6_NON_PUBLIC: readonly [string, number][] = [
  ["::", 96], // unspecified, loopback (::1) and the deprecated IPv4-compatible form
  ["::ffff:0:0:0", 96], // IPv4-translated (SIIT): embeds an IPv4 address
  ["64:ff9b::", 96], // NAT64: embeds an IPv4 address
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments, Teredo (2001::/32) among them
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: embeds an IPv4 address
  ["3fff::", 20], // documentation
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const NON_PUBLIC = new BlockList();
for (const [net, prefix] of IPV4_NON_PUBLIC) NON_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of IPV6_NON_PUBLIC) NON_PUBLIC.addSubnet(net, prefix, "ipv6");

/** An address without URL brackets or an IPv6 zone (`[fe80::1%eth0]` → `fe80::1`). */
export function bareAddress(host: string): string {
  const unbracketed = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const zone = unbracketed.indexOf("%");
  return zone === -1 ? unbracketed : unbracketed.slice(0, zone);
}

/** True when `host` is an IPv4 or IPv6 address (brackets allowed), not a name. */
export function isIpAddress(host: string): boolean {
  return isIP(bareAddress(host)) !== 0;
}

/**
 * True when `address` is a public unicast IP address. Anything else, including a string that
 * is not an address at all, is false: callers refuse what this does not approve.
 *
 * @example
 * ```ts
 * import { isPublicAddress } from "./net_address.ts";
 * console.assert(isPublicAddress("93.184.215.14"));
 * console.assert(!isPublicAddress("10.1.2.3"));
 * console.assert(!isPublicAddress("[::ffff:127.0.0.1]"));
 * ```
 */
export function isPublicAddress(address: string): boolean {
  const bare = bareAddress(address);
  const family = isIP(bare);
  if (family === 4) return !NON_PUBLIC.check(bare, "ipv4");
  if (family === 6) return !NON_PUBLIC.check(bare, "ipv6");
  return false;
}
