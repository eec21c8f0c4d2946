/**
 * A public project's history and the search over public profiles, computed here once for
 * the HTTP routes (JSON, HTML, Markdown) and the MCP tools, so every surface answers the
 * same versions, the same changes and the same matches.
 */
import type {
  PublishedVersion,
  PublishedVersionListResponse,
  TrustProfileMatch,
  TrustProfileSearchResponse,
  VersionPageQuery,
} from "../domain/publish.ts";
import type { Project } from "../domain/workspace.ts";
import type { Publication } from "../domain/publication.ts";
import { scanProjects } from "../store/projects.ts";
import { getOrganization } from "../store/organizations.ts";
import { getOrganizationProfile } from "../store/org_profiles.ts";
import { getLatestPublication, listPublicationsPage } from "../store/publications.ts";
import { publicPublication, type PublicReads } from "./public_read.ts";
import { compareCodePoints } from "../lib/order.ts";

/** Versions per page when the request names no limit: JSON keeps its former 100. */
export const JSON_VERSIONS_LIMIT = 100;
/** Versions per page of the HTML and Markdown pages, which show each change list. */
export const PAGE_VERSIONS_LIMIT = 20;
/** Most profiles one search answers. */
export const MAX_SEARCH_RESULTS = 20;

/** A version's public entry: the stored change list, each change with its reason or null. */
function toEntry(p: Publication): PublishedVersion {
  return {
    version: p.version,
    publishedAt: p.publishedAt,
    digest: p.digest,
    previousDigest: p.previousDigest,
    overallState: p.overallState,
    changes: p.changes.map((c) => ({
      key: c.key,
      name: c.name,
      from: c.from,
      to: c.to,
      reason: c.reason ?? null,
    })),
  };
}

/**
 * One page of a public project's versions, newest first (404 for unknown, private and
 * never-published projects). Reads at most `limit + 1` index entries, from the version
 * before `cursor` when given, so a page costs the same whatever the history's length.
 */
export async function versionPage(
  reads: PublicReads,
  slug: string,
  query: VersionPageQuery & { defaultLimit?: number },
): Promise<{ project: Project; body: PublishedVersionListResponse }> {
  const { project } = await publicPublication(reads, slug);
  const limit = query.limit ?? query.defaultLimit ?? JSON_VERSIONS_LIMIT;
  const before = query.cursor === undefined ? undefined : Number(query.cursor);
  const { publications, more } = await listPublicationsPage(reads.kv, project.id, {
    before,
    limit,
  });
  const versions = publications.map(toEntry);
  const last = versions.at(-1);
  const nextCursor = more && last ? String(last.version) : null;
  return { project, body: { versions, nextCursor } };
}

/** How well some names match: exact, then prefix, then anywhere (-1: not at all). */
function rankOf(names: readonly string[], needle: string): number {
  const lower = names.map((n) => n.toLowerCase());
  if (lower.some((n) => n === needle)) return 0;
  if (lower.some((n) => n.startsWith(needle))) return 1;
  return lower.some((n) => n.includes(needle)) ? 2 : -1;
}

/** Who publishes a project, as search matches and shows it. */
interface Publisher {
  name: string;
  slug: string;
  /** The organization's name, slug and vendor display name. */
  names: string[];
  description: string;
}

async function publisherOf(kv: Deno.Kv, organizationId: string): Promise<Publisher | null> {
  const [organization, profile] = await Promise.all([
    getOrganization(kv, organizationId),
    getOrganizationProfile(kv, organizationId),
  ]);
  if (!organization) return null;
  const name = profile.displayName ?? organization.name;
  return {
    name,
    slug: organization.slug,
    names: [organization.name, organization.slug, name],
    description: profile.description ?? "",
  };
}

/**
 * How well a project matches: by its own slug or name (exact, prefix, anywhere: 0–2), else
 * by its publisher's name, slug or display name (3–5), else by words of the publisher's
 * description (6); -1 when nothing matches.
 */
function rank(project: Project, publisher: Publisher | null, needle: string): number {
  const own = rankOf([project.slug, project.name], needle);
  if (own >= 0) return own;
  if (!publisher) return -1;
  const byPublisher = rankOf(publisher.names, needle);
  if (byPublisher >= 0) return 3 + byPublisher;
  return publisher.description.toLowerCase().includes(needle) ? 6 : -1;
}

/**
 * Public projects that have published and whose name or slug contains `query` (any case),
 * or whose organization's name, slug, display name or description does, best matches first,
 * then by name; at most MAX_SEARCH_RESULTS. Private projects never appear. Reads every
 * project record once (a streamed list), each organization's profile once, and the latest
 * publication of the matches only.
 */
export async function searchTrustProfiles(
  reads: PublicReads,
  query: string,
): Promise<TrustProfileSearchResponse> {
  const trimmed = query.trim();
  const needle = trimmed.toLowerCase();
  const found: Array<{ project: Project; rank: number; publisher: Publisher | null }> = [];
  const publishers = new Map<string, Promise<Publisher | null>>();
  for await (const project of scanProjects(reads.kv)) {
    if (project.visibility !== "public") continue;
    if (!publishers.has(project.organizationId)) {
      publishers.set(project.organizationId, publisherOf(reads.kv, project.organizationId));
    }
    const publisher = await publishers.get(project.organizationId)!;
    const r = rank(project, publisher, needle);
    if (r >= 0) found.push({ project, rank: r, publisher });
  }
  found.sort((a, b) =>
    a.rank - b.rank || a.project.name.localeCompare(b.project.name, "en") ||
    compareCodePoints(a.project.slug, b.project.slug)
  );
  const profiles: TrustProfileMatch[] = [];
  for (const { project, publisher } of found) {
    if (profiles.length >= MAX_SEARCH_RESULTS) break;
    const publication = await getLatestPublication(reads.kv, project.id);
    if (!publication || !publisher) continue;
    profiles.push({
      slug: project.slug,
      name: project.name,
      overallState: publication.overallState,
      version: publication.version,
      publishedAt: publication.publishedAt,
      organization: { name: publisher.name, slug: publisher.slug },
    });
  }
  return { query: trimmed, profiles };
}
