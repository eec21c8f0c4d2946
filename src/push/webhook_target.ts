/**
 * Where a webhook may be sent (SSRF protection): the URL's host is resolved (or taken as the
 * IP literal it is) and every address must be global unicast (src/lib/ip.ts), unless
 * WEBHOOK_ALLOW_PRIVATE is on.
 * This runs at registration and again before every attempt. The attempt connects to an address
 * checked here, or, where the platform refuses such a connection, checks the address it reached
 * or checks the name again just before its request (src/push/webhook_http.ts says what each
 * path guards against DNS rebinding).
 */
import { isGlobalUnicast, parseIp } from "../lib/ip.ts";

function isLoopback(address: string): boolean {
  return parseIp(address)?.range() === "loopback";
}

/** Looks up a host's addresses (A and AAAA). */
export interface HostResolver {
  resolve(host: string): Promise<string[]>;
}

/**
 * A resolver over `Deno.resolveDns`, via `nameserver` (an IP literal and port, from
 * DNS_NAMESERVER) when given, each lookup bounded by `timeoutMs`.
 */
export function createHostResolver(
  nameserver?: { host: string; port: number },
  { timeoutMs = 5000 }: { timeoutMs?: number } = {},
): HostResolver {
  const nameServer = nameserver && parseIp(nameserver.host)
    ? { ipAddr: nameserver.host.replace(/^\[(.*)\]$/, "$1"), port: nameserver.port }
    : undefined;
  return {
    async resolve(host) {
      const signal = AbortSignal.timeout(timeoutMs);
      const lookups = (["A", "AAAA"] as const).map((type) =>
        Deno.resolveDns(host, type, { nameServer, signal }).catch((error) => {
          if (error instanceof Deno.errors.NotFound) return [] as string[];
          throw error;
        })
      );
      return (await Promise.all(lookups)).flat();
    },
  };
}

/** Why a URL may not receive webhooks; the message is shown to the caller. */
export class TargetRefused extends Error {
  /** `retryable`: the host could not be resolved now, which a later attempt may overcome. */
  constructor(message: string, readonly retryable = false) {
    super(message);
    this.name = "TargetRefused";
  }
}

/** What a target was checked against: whether non-public addresses pass, and the resolver. */
export interface TargetPolicy {
  allowPrivate: boolean;
  resolver: HostResolver;
}

/**
 * A URL that passed the checks, with the addresses its host had at that moment and the policy
 * it passed (absent: judged strictly, with nothing to check the name again with).
 */
export interface CheckedTarget {
  url: URL;
  addresses: string[];
  policy?: TargetPolicy;
}

/**
 * Why `address` may not receive webhooks (SSRF), as "<address>, a loopback…" to follow "resolves
 * to" or "reached"; null when it may.
 */
export function addressRefusal(address: string, allowPrivate: boolean): string | null {
  if (allowPrivate || isGlobalUnicast(address)) return null;
  return `${address}, a loopback, private or otherwise non-public address; such endpoints are refused unless the service runs with WEBHOOK_ALLOW_PRIVATE=true`;
}

/** The IP literal of a URL host (`[::1]` → `::1`), or null for a name. */
function literalOf(hostname: string): string | null {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1");
  return parseIp(bare) ? bare : null;
}

async function addressesOf(url: URL, resolver: HostResolver): Promise<string[]> {
  const literal = literalOf(url.hostname);
  if (literal) return [literal];
  const host = url.hostname.replace(/\.$/, "");
  if (host === "localhost" || host.endsWith(".localhost")) return ["127.0.0.1", "::1"];
  let addresses: string[];
  try {
    addresses = await resolver.resolve(host);
  } catch {
    throw new TargetRefused(`The host "${host}" could not be resolved`, true);
  }
  if (addresses.length === 0) throw new TargetRefused(`The host "${host}" has no address`, true);
  return addresses;
}

function parseTarget(text: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TargetRefused("The webhook URL must be an absolute http(s) URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TargetRefused("The webhook URL must use https");
  }
  if (url.protocol === "http:" && !allowPrivate) {
    throw new TargetRefused("The webhook URL must use https");
  }
  if (url.username || url.password) {
    throw new TargetRefused("The webhook URL must not carry a user name or password");
  }
  if (url.hash) throw new TargetRefused("The webhook URL must not have a fragment");
  return url;
}

/**
 * Checks `text` as a webhook target: https (http only to loopback with `allowPrivate`), no
 * credentials, and a host whose every address is public (any address with `allowPrivate`).
 * Throws `TargetRefused` with the reason.
 */
export async function checkTarget(
  text: string,
  options: { allowPrivate: boolean; resolver: HostResolver },
): Promise<CheckedTarget> {
  const url = parseTarget(text, options.allowPrivate);
  const addresses = await addressesOf(url, options.resolver);
  for (const address of addresses) {
    const refusal = addressRefusal(address, options.allowPrivate);
    if (refusal) throw new TargetRefused(`The webhook host resolves to ${refusal}`);
  }
  if (url.protocol === "http:" && !addresses.every(isLoopback)) {
    throw new TargetRefused("The webhook URL must use https (http only for loopback addresses)");
  }
  const policy = { allowPrivate: options.allowPrivate, resolver: options.resolver };
  return { url, addresses, policy };
}
