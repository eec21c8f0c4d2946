/**
 * Response headers of public reads, shared by the routes and the trust.json
 * fast path so both answer byte for byte alike.
 */
import type { Config } from "../config.ts";
import { trustPageCsp } from "../publish/render/mod.ts";

/** Cache policy of every latest (unversioned) public read. */
export const PUBLIC_CACHE = "public, s-maxage=300";
/** Cache policy of versioned reads: a version never changes. */
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

export const JSON_TYPE = "application/json; charset=utf-8";
export const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

/** Response headers a script on another origin may read (besides the CORS-safelisted ones). */
export const EXPOSED_HEADERS = "ETag, Link, Location, Retry-After, Mcp-Session-Id";

/** The CORS headers of every public read's response, the trust.json fast path's included. */
export const PUBLIC_CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": EXPOSED_HEADERS,
} as const;

/** Headers of the latest trust.json, shared by its route and the fast path. */
export const TRUST_JSON_HEADERS = {
  "content-type": JSON_TYPE,
  "cache-control": PUBLIC_CACHE,
} as const;

/** The Link relation (an extension relation, RFC 8288 §2.1.2) to a version's inclusion proof. */
export function inclusionRelation(config: Config): string {
  return `${config.baseUrl}/log#inclusion-proof`;
}

/**
 * Headers of a trust.json answer: `base`, and a Link to the inclusion proof of its version
 * in the publication log when the version is logged (`logIndex`).
 */
export function trustJsonHeaders(
  config: Config,
  logIndex: number | undefined,
  base: Record<string, string> = TRUST_JSON_HEADERS,
): Record<string, string> {
  if (logIndex === undefined) return base;
  const link = `<${config.baseUrl}/log/entries/${logIndex}/inclusion>; rel="${
    inclusionRelation(config)
  }"`;
  return { ...base, link };
}

/**
 * Security headers of a trust page (no script, only its hashed stylesheet). A stored page
 * is served with the policy recorded when it was rendered (`csp`).
 */
export function trustPageHeaders(csp = trustPageCsp()): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  };
}
