/**
 * The client address of a request: the peer address from the Deno.serve
 * connection info that Hono exposes as `c.env`, or, when that peer is one of
 * the configured trusted proxies (`TRUSTED_PROXIES`), the address the proxies
 * forwarded. Forwarding headers from any other peer are ignored, since any
 * client can send them.
 */
import type { Context } from "hono";
import { type IpRange, isInRanges, parseIp } from "../lib/ip.ts";
import type { AppEnv } from "./env.ts";

/** Hops read from a forwarding header; a longer chain is cut at this many from the right. */
const MAX_HOPS = 32;

/** The `for=` node of one RFC 7239 element, without quotes, brackets or port. */
function forwardedFor(element: string): string | null {
  for (const pair of element.split(";")) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim().toLowerCase() !== "for") continue;
    let node = pair.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (node.startsWith("[")) node = node.slice(1, node.indexOf("]") >>> 0);
    else if (node.split(":").length === 2) node = node.slice(0, node.indexOf(":"));
    return node;
  }
  return null;
}

/** The forwarded chain, client first: `Forwarded` (RFC 7239) when present, else `X-Forwarded-For`. */
function forwardedChain(headers: Headers): string[] {
  const forwarded = headers.get("forwarded");
  if (forwarded) return forwarded.split(",").map((element) => forwardedFor(element) ?? "");
  const xff = headers.get("x-forwarded-for");
  return xff ? xff.split(",").map((hop) => hop.trim()) : [];
}

/**
 * The client address for `peer`: walking the forwarded chain from the right,
 * every hop that is a trusted proxy passes the question on to the hop before
 * it; the first address that is not a trusted proxy is the client. A hop that
 * is not an IP address (`unknown`, an obfuscated name) ends the walk at the
 * last trusted proxy.
 */
export function clientAddress(
  peer: string,
  options: { headers: Headers; trustedProxies: readonly IpRange[] },
): string {
  const { headers, trustedProxies } = options;
  if (trustedProxies.length === 0 || !isInRanges(peer, trustedProxies)) return peer;
  let client = peer;
  for (const hop of forwardedChain(headers).slice(-MAX_HOPS).reverse()) {
    if (!isInRanges(client, trustedProxies) || !parseIp(hop)) break;
    client = hop;
  }
  return client;
}

/** The client address of the request in `c` (see `clientAddress`). */
export function clientIp(c: Context<AppEnv>): string {
  const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  const peer = env?.remoteAddr?.hostname ?? "unknown";
  return clientAddress(peer, {
    headers: c.req.raw.headers,
    trustedProxies: c.var.services.config.trustedProxies,
  });
}
