/**
 * DNS-rebinding protection for /mcp: the Host (and, when a browser sends
 * one, the Origin) must be one this deployment is configured to answer as.
 * A page on another domain that rebinds its name to our address still sends
 * its own Host, so it is refused before any JSON-RPC is read.
 */
import type { Config } from "../config.ts";

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };
/** Names of this machine; a rebinding page can never send one of them as its Host. */
const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];

function configuredUrls(config: Config): URL[] {
  return [new URL(config.baseUrl), new URL(config.trustPageBase)];
}

/** Every `[protocol, hostname, port]` this deployment answers as (loopback: every loopback name). */
function configuredHosts(config: Config): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  for (const url of configuredUrls(config)) {
    const port = url.port || DEFAULT_PORTS[url.protocol];
    const names = LOOPBACK.includes(url.hostname) ? LOOPBACK : [url.hostname];
    for (const name of names) out.push([url.protocol, name, port]);
  }
  return out;
}

/**
 * Host header values accepted on /mcp: the hosts of BASE_URL and
 * TRUST_PAGE_BASE, each with and without its port (clients and proxies
 * differ on whether they send a default port). A loopback base accepts
 * every loopback name, so the default `http://localhost:8000` also answers
 * a client that was given `http://127.0.0.1:8000/mcp`.
 */
export function mcpAllowedHosts(config: Config): string[] {
  return [
    ...new Set(configuredHosts(config).flatMap(([, name, port]) => [name, `${name}:${port}`])),
  ];
}

/** Origin header values accepted on /mcp (requests without an Origin are not browsers). */
export function mcpAllowedOrigins(config: Config): string[] {
  return [
    ...new Set(
      configuredHosts(config).map(([protocol, name, port]) =>
        new URL(`${protocol}//${name}:${port}`).origin
      ),
    ),
  ];
}
