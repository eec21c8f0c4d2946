/**
 * The hot read of the service, GET /trust/{projectSlug}/trust.json (what
 * machines poll), answered before the router: from the public cache and the
 * in-memory artifact bytes, with exactly the route's headers. When both are
 * warm the answer is built synchronously. Anything it cannot answer from
 * memory (unknown or private slug, another host, a cold cache) goes to the
 * full app, which gives the same answer and warms the caches.
 */
import { cachedArtifactBytes } from "./artifacts.ts";
import type { Services } from "./env.ts";
import { serviceHostTest } from "./host_routing.ts";

const TRUST_JSON = /^\/trust\/([^/]+)\/trust\.json$/;

/** Headers of the latest trust.json, shared with its route so both answer alike. */
export const TRUST_JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "public, s-maxage=300",
} as const;

function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === etag || tag === "*";
  });
}

/** Returns a Response, or null to let the router answer. */
export function createFastPath(services: Services) {
  const isServiceHost = serviceHostTest(services.config);
  return (request: Request): Response | null => {
    if (request.method !== "GET" && request.method !== "HEAD") return null;
    const url = request.url;
    const start = url.indexOf("/", url.indexOf("//") + 2);
    const query = url.indexOf("?", start);
    const match = TRUST_JSON.exec(query < 0 ? url.slice(start) : url.slice(start, query));
    if (!match || match[1].includes("%")) return null;
    if (!isServiceHost(request.headers.get("host") ?? undefined)) return null;
    const view = services.publicCache.peek(match[1]);
    if (view?.project?.visibility !== "public" || !view.publication) return null;
    const artifact = view.publication.artifacts.trustJson;
    const bytes = cachedArtifactBytes(artifact);
    if (!bytes) return null;
    const etag = `"${artifact.digest}"`;
    const headers = {
      ...TRUST_JSON_HEADERS,
      etag,
      "access-control-allow-origin": "*",
      "x-content-type-options": "nosniff",
    };
    if (matchesEtag(request.headers.get("if-none-match"), etag)) {
      const { "content-type": _type, ...rest } = headers;
      return new Response(null, { status: 304, headers: rest });
    }
    return new Response(request.method === "HEAD" ? null : bytes, { headers });
  };
}
