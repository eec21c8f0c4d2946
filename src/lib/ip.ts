/**
 * IP addresses and CIDR ranges (IPv4 and IPv6), read and classified by the
 * maintained `ipaddr.js`: which peers are trusted proxies, and which addresses
 * are on the public internet (webhook targets). Only the usual notations are
 * accepted (dotted-decimal IPv4 without leading zeros, IPv6 without a zone);
 * IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) count as their IPv4 address.
 */
import ipaddr from "ipaddr.js";

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;
/** A network: an address and its prefix length, as `ipaddr.parseCIDR` returns it. */
export type IpRange = [IpAddress, number];

/** The longest IPv6 text (eight groups with an IPv4 tail), which also bounds the parser's work. */
const MAX_LENGTH = 45;

/** An address, IPv4-mapped IPv6 as its IPv4, or null when `text` is not an IP address. */
export function parseIp(text: string): IpAddress | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (bare.length > MAX_LENGTH || bare.includes("%")) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  // A dotted IPv4 tail becomes its two groups first: ipaddr.js would also read hexadecimal and
  // octal tails, and it reads `::a.b.c.d` (IPv4-compatible, ::/96) as IPv4-mapped.
  const colon = bare.lastIndexOf(":");
  const tail = bare.slice(colon + 1);
  let groups = bare;
  if (tail.includes(".")) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
    const [a, b, c, d] = ipaddr.IPv4.parse(tail).octets;
    const group = (high: number, low: number) => ((high << 8) | low).toString(16);
    groups = `${bare.slice(0, colon + 1)}${group(a, b)}:${group(c, d)}`;
  }
  if (!ipaddr.IPv6.isValid(groups)) return null;
  const v6 = ipaddr.IPv6.parse(groups);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** Parses `192.0.2.0/24`, `2001:db8::/32` or a single address; throws a TypeError otherwise. */
export function parseIpRange(text: string): IpRange {
  const [address, prefix, extra] = text.trim().split("/");
  const ip = parseIp(address);
  const width = ip?.kind() === "ipv4" ? 32 : 128;
  const bits = prefix === undefined ? width : /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!ip || extra !== undefined || !(bits >= 0 && bits <= width)) {
    throw new TypeError(`"${text.trim()}" is not an IP address or CIDR range`);
  }
  return [ip, bits];
}

/** Whether `address` (text) lies in any of `ranges`. */
export function isInRanges(address: string, ranges: readonly IpRange[]): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  return ranges.some((range) => range[0].kind() === ip.kind() && ip.match(range));
}

/** IANA's global unicast space for IPv6; everything outside it is special or unassigned. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR("2000::/3");
/** NAT64's well-known prefix (RFC 6052): the gateway connects to the IPv4 in the last 32 bits. */
const NAT64 = ipaddr.parseCIDR("64:ff9b::/96");

/**
 * Whether `address` is a global unicast address: ipaddr.js ranks it `unicast` (not loopback,
 * private, link-local, carrier-grade NAT, multicast, broadcast, unspecified, reserved,
 * documentation, benchmarking, unique-local, site-local, 6to4, Teredo, ORCHID, AMT, AS112,
 * discard, segment routing…), and an IPv6 one also lies in 2000::/3 (so the IPv4-compatible
 * `::a.b.c.d` and other unassigned space are not). IPv4-mapped addresses are judged as their
 * IPv4, and NAT64 addresses (64:ff9b::/96) by the IPv4 address they carry.
 */
export function isGlobalUnicast(address: string): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  if (ip.kind() === "ipv4") return ip.range() === "unicast";
  if (ip.match(NAT64)) {
    return ipaddr.fromByteArray(ip.toByteArray().slice(12)).range() === "unicast";
  }
  return ip.range() === "unicast" && ip.match(GLOBAL_UNICAST_V6);
}
