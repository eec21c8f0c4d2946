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
import { getProject } from "../store/projects.ts";
import { pendingDeletionOf } from "../store/deletions.ts";
import {
  descriptionMatches,
  ensureSearchIndex,
  nameRank,
  normaliseSearchText,
  projectNames,
  type PublisherTerms,
  publisherTerms,
  searchCandidates,
} from "../store/search_index.ts";
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

/** Who publishes a project, as search matches and shows it. */
interface Publisher {
  name: string;
  slug: string;
  terms: PublisherTerms;
}

async function publisherOf(kv: Deno.Kv, organizationId: string): Promise<Publisher | null> {
  const [organization, profile] = await Promise.all([
    getOrganization(kv, organizationId),
    getOrganizationProfile(kv, organizationId),
  ]);
  if (!organization) return null;
  return {
    name: profile.displayName ?? organization.name,
    slug: organization.slug,
    terms: publisherTerms(organization, profile),
  };
}

/**
 * How well a project matches a normalised needle: by its own slug or name (exact, prefix,
 * from a word start: 0–2), else by its publisher's name, slug or display name (3–5), else by
 * a word of the publisher's description (6); -1 when nothing matches. The index ranks its
 * entries the same way; this confirms each candidate against the records as they are now.
 */
function rank(project: Project, publisher: Publisher, needle: string): number {
  const own = nameRank(projectNames(project), needle);
  if (own >= 0) return own;
  const byPublisher = nameRank(publisher.terms.names, needle);
  if (byPublisher >= 0) return 3 + byPublisher;
  return descriptionMatches(publisher.terms.description, needle) ? 6 : -1;
}

/** Index entries read at most per query, whatever they turn out to be. */
const MAX_CANDIDATES = 200;

interface Found {
  match: TrustProfileMatch;
  rank: number;
}

/** A candidate as search shows it, or null when it is not public, unpublished or no match. */
async function confirm(
  kv: Deno.Kv,
  projectId: string,
  needle: string,
  publishers: Map<string, Promise<Publisher | null>>,
): Promise<Found | null> {
  const [project, publication] = await Promise.all([
    getProject(kv, projectId),
    getLatestPublication(kv, projectId),
  ]);
  if (!project || project.visibility !== "public" || !publication) return null;
  // A project whose deletion (or whose organization's) is scheduled is gone from search at once;
  // its index entries stay for an undo, and go with the deletion job.
  if (await pendingDeletionOf(kv, { projectId, organizationId: project.organizationId })) {
    return null;
  }
  if (!publishers.has(project.organizationId)) {
    publishers.set(project.organizationId, publisherOf(kv, project.organizationId));
  }
  const publisher = await publishers.get(project.organizationId)!;
  if (!publisher) return null;
  const r = rank(project, publisher, needle);
  if (r < 0) return null;
  return {
    rank: r,
    match: {
      slug: project.slug,
      name: project.name,
      overallState: publication.overallState,
      version: publication.version,
      publishedAt: publication.publishedAt,
      organization: { name: publisher.name, slug: publisher.slug },
    },
  };
}

/**
 * Public projects that have published and whose name or slug matches `query` (any case,
 * punctuation as spaces; whole, prefix, or from a word start), or whose organization's name,
 * slug or display name does, or a word of its description; best matches first, then by
 * name; at most MAX_SEARCH_RESULTS. Private projects never appear. Reads the search index
 * (src/store/search_index.ts), best entries first, and confirms candidates in small parallel
 * batches until it has enough: the cost does not grow with the number of projects.
 */
export async function searchTrustProfiles(
  reads: PublicReads,
  query: string,
): Promise<TrustProfileSearchResponse> {
  const trimmed = query.trim();
  const needle = normaliseSearchText(trimmed);
  if (!needle) return { query: trimmed, profiles: [] };
  await ensureSearchIndex(reads.kv);
  const found: Found[] = [];
  const seen = new Set<string>();
  const publishers = new Map<string, Promise<Publisher | null>>();
  let batch: string[] = [];
  let read = 0;
  const settle = async () => {
    const confirmed = await Promise.all(
      batch.map((id) => confirm(reads.kv, id, needle, publishers)),
    );
    for (const f of confirmed) if (f && found.length < MAX_SEARCH_RESULTS) found.push(f);
    batch = [];
  };
  for await (const candidate of searchCandidates(reads.kv, needle)) {
    if (++read > MAX_CANDIDATES) break;
    if (seen.has(candidate.projectId)) continue;
    seen.add(candidate.projectId);
    batch.push(candidate.projectId);
    if (found.length + batch.length >= MAX_SEARCH_RESULTS) await settle();
    if (found.length >= MAX_SEARCH_RESULTS) break;
  }
  if (batch.length > 0) await settle();
  found.sort((a, b) =>
    a.rank - b.rank || a.match.name.localeCompare(b.match.name, "en") ||
    compareCodePoints(a.match.slug, b.match.slug)
  );
  return { query: trimmed, profiles: found.map((f) => f.match) };
}
