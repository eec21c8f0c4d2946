/**
 * The OAuth clients of the built-in identity provider: the dashboard (a
 * public client using PKCE) and native tools on loopback (RFC 8252 §7.3).
 */
import type { Config } from "../../config.ts";

/** The dashboard's redirect URI: the page that completes the sign-in. */
export function dashboardRedirectUri(config: Config): string {
  return `${config.baseUrl}/dashboard/`;
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Whether `redirectUri` may receive codes for `clientId`: the dashboard's own
 * page, or an http loopback address on any port, as native apps use.
 */
export function isAllowedRedirect(config: Config, clientId: string, redirectUri: string): boolean {
  if (clientId !== config.auth.clientId) return false;
  if (redirectUri === dashboardRedirectUri(config)) return true;
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return false;
  }
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname) && !url.hash &&
    !url.username && !url.password;
}
