/**
 * What the edge in front of the service (Deno Deploy's CDN, or Varnish with xkey) is told
 * about a public response: how long it may keep it and which tags purge it. A response the
 * purge keeps fresh may be kept for a day; a versioned one is immutable and content-addressed
 * (`Deno-Cache-Id` keeps it across deployments). Without a purge driver nothing but the
 * specification's `Cache-Control` is sent, so no cache keeps a page longer than it allows.
 */
import type { EdgeConfig } from "../config.ts";

/** Every page of an organization (its trust center and all its projects). */
export const orgTag = (organizationId: string) => `org-${organizationId}`;
/** Every page of one project, on every host (custom domains included). */
export const projectTag = (projectId: string) => `project-${projectId}`;
/** The trust center's pages, which list every project of the organization. */
export const centerTag = (organizationId: string) => `center-${organizationId}`;
/** Whatever a custom domain or hosted subdomain served. */
export const domainTag = (host: string) => `domain-${host.toLowerCase()}`;

/** How long the edge may keep a page that purges keep fresh. */
export const EDGE_TTL_SECONDS = 86_400;

/**
 * The pages of one group (src/domain/stored_urls.ts) of a project, or of the trust center (null):
 * what a render of that group purges.
 */
export const groupTag = (organizationId: string, projectId: string | null, group: string) =>
  `${projectId === null ? centerTag(organizationId) : projectTag(projectId)}-${group}`;

/**
 * The tags of a page of `projectId` (null: a trust center page) in `organizationId`, with its
 * group's last when it is a stored URL's.
 */
export function pageTags(
  organizationId: string,
  projectId: string | null,
  group?: string,
): string[] {
  const tags = projectId === null
    ? [orgTag(organizationId), centerTag(organizationId)]
    : [orgTag(organizationId), projectTag(projectId)];
  if (group !== undefined) tags.push(groupTag(organizationId, projectId, group));
  return tags;
}

/** Headers that let the edge keep a purgeable response: a long TTL for CDNs, and its tags. */
export function edgeHeaders(config: EdgeConfig, tags: readonly string[]): Record<string, string> {
  if (config.purge === "none" || tags.length === 0) return {};
  const ttl = `public, max-age=${EDGE_TTL_SECONDS}`;
  return {
    "cdn-cache-control": ttl,
    "deno-cdn-cache-control": ttl,
    "surrogate-key": tags.join(" "),
    "deno-cache-tag": tags.join(","),
  };
}

/** Headers of an immutable, content-addressed response: its id across deployments, and tags. */
export function immutableEdgeHeaders(
  config: EdgeConfig,
  id: string,
  tags: readonly string[],
): Record<string, string> {
  if (config.purge === "none") return {};
  return {
    "deno-cache-id": id,
    "surrogate-key": tags.join(" "),
    "deno-cache-tag": tags.join(","),
  };
}

/** Adds tags to a response's edge headers (a custom domain's own tag), if it has any. */
export function withTag(headers: Headers, tag: string): void {
  const surrogate = headers.get("surrogate-key");
  if (surrogate !== null) headers.set("surrogate-key", `${surrogate} ${tag}`);
  const deno = headers.get("deno-cache-tag");
  if (deno !== null) headers.set("deno-cache-tag", `${deno},${tag}`);
}
