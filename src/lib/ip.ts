/**
 * IP addresses and CIDR ranges (IPv4 and IPv6), for deciding which peers are
 * trusted proxies. Addresses are compared as integers; IPv4-mapped IPv6
 * addresses (`::ffff:192.0.2.1`) count as their IPv4 address.
 */

export interface IpRange {
  version: 4 | 6;
  /** The network address, masked to `bits`. */
  network: bigint;
  bits: number;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIpv4(text: string): bigint | null {
  const m = IPV4.exec(text);
  if (!m) return null;
  let value = 0n;
  for (const part of m.slice(1)) {
    if (part.length > 1 && part.startsWith("0")) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  if (text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const words: number[] = [];
  const last = (halves.length === 2 ? tail : head).at(-1);
  if (last?.includes(".")) {
    const v4 = parseIpv4(last);
    if (v4 === null) return null;
    (halves.length === 2 ? tail : head).splice(
      -1,
      1,
      ((v4 >> 16n) & 0xffffn).toString(16),
      (v4 & 0xffffn).toString(16),
    );
  }
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  for (const group of [...head, ...Array(missing).fill("0"), ...tail]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
    words.push(parseInt(group, 16));
  }
  return words.reduce((acc, word) => (acc << 16n) | BigInt(word), 0n);
}

const MAPPED_PREFIX = 0xffffn << 32n;

/** An address as `{ version, value }`, or null when `text` is not an IP address. */
export function parseIp(text: string): { version: 4 | 6; value: bigint } | null {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  const v4 = parseIpv4(bare);
  if (v4 !== null) return { version: 4, value: v4 };
  const v6 = parseIpv6(bare);
  if (v6 === null) return null;
  if (v6 >> 32n === MAPPED_PREFIX >> 32n) return { version: 4, value: v6 & 0xffffffffn };
  return { version: 6, value: v6 };
}

/** Parses `192.0.2.0/24`, `2001:db8::/32` or a single address; throws a TypeError otherwise. */
export function parseIpRange(text: string): IpRange {
  const [address, prefix, extra] = text.trim().split("/");
  const ip = parseIp(address);
  const width = ip?.version === 4 ? 32 : 128;
  const bits = prefix === undefined ? width : Number(prefix);
  if (!ip || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > width) {
    throw new TypeError(`"${text.trim()}" is not an IP address or CIDR range`);
  }
  const mask = ((1n << BigInt(bits)) - 1n) << BigInt(width - bits);
  return { version: ip.version, network: ip.value & mask, bits };
}

/** Whether `address` (text) lies in any of `ranges`. */
export function isInRanges(address: string, ranges: readonly IpRange[]): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  const width = ip.version === 4 ? 32 : 128;
  return ranges.some((range) => {
    if (range.version !== ip.version) return false;
    const mask = ((1n << BigInt(range.bits)) - 1n) << BigInt(width - range.bits);
    return (ip.value & mask) === range.network;
  });
}
