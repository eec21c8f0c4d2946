/**
 * The peer address of a request, from the Deno.serve connection info that
 * Hono exposes as `c.env`; proxies' forwarding headers are not trusted.
 */
import type { Context } from "hono";

export function clientIp(c: Context): string {
  const env = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return env?.remoteAddr?.hostname ?? "unknown";
}
