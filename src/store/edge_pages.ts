/**
 * Stored public pages: what the render job made of each public URL, kept in KV per
 * (path, variant, coding) and served as bytes (src/http/stored_pages.ts). A record remembers the
 * generations it was rendered at; a change that alters public pages bumps them in its own
 * commit (the one commit path, src/store/public_writes.ts) and stages the job that renders
 * again, so the request path can tell a current record from one that waits for its re-render.
 *
 * Stored URLs come in groups that read the same data (src/domain/stored_urls.ts declares what each
 * reads). Generations are counted per organization and group: a project's page of group `g`
 * depends on `[org, "org", g]` (organization-wide data it reads, and `changes` when it reads
 * those) and `[org, projectId, g]` (its project's data); a trust center's page of group `g` on
 * `[org, "center", g]`. A commit bumps only the generations of the groups that read a
 * collection it mutated, and `*`, bumped by every change (answer downloads and shared
 * questionnaires version their caches by it).
 */
import { CENTER_GROUPS, type PageGroup, PROJECT_GROUPS } from "../domain/stored_urls.ts";
import { stageJob } from "./jobs.ts";

/** Which representation of a URL: `any` when it does not vary by Accept. */
export type Variant = "any" | "html" | "md" | "json";
/** The stored content codings. */
export type StoredCoding = "identity" | "gzip" | "br";

/** The job kind that renders an organization's public pages and purges the edge. */
export const RENDER_JOB = "edge.render";

/** Largest body kept inside the KV record; larger ones go to the blob store. */
export const INLINE_BYTES = 56 * 1024;

/** One stored representation of a public URL. */
export interface StoredPage {
  organizationId: string;
  /** The project whose page this is, or null for the trust center's pages. */
  projectId: string | null;
  /** The id of the page's group (src/domain/stored_urls.ts); absent on records of older releases. */
  group?: string;
  /** The generations (versionstamps, "" for none) this page was rendered at, in scope order. */
  generations: string[];
  status: number;
  /** Response headers as rendered, without ETag, Content-Length and Content-Encoding. */
  headers: [string, string][];
  etag: string;
  /** Cache tags of the edge (src/edge/tags.ts). */
  tags: string[];
  /** The body, when small enough to keep here. */
  body?: Uint8Array;
  /** Else the blob holding it. */
  blob?: string;
  renderedAt: string;
}

/** What the last render of one group of a scope did: what it rendered, whether it purged. */
export interface ScopeState {
  rendered: string;
  purged: boolean;
  /** The paths stored for this group of the scope, each as `variant path`. */
  paths: string[];
  renderedAt: string;
  purgeError: string | null;
}

export const pageKey = (path: string, variant: Variant, coding: StoredCoding): Deno.KvKey => [
  "edge_page",
  path,
  variant,
  coding,
];
/** A generation: `group` of a scope, or without one the organization-wide `*`. */
export const generationKey = (
  organizationId: string,
  scope: string,
  group?: string,
): Deno.KvKey => ["edge_gen", organizationId, scope, ...(group === undefined ? [] : [group])];
/** What the last render of one group of a scope (a project's id, or `center`) did. */
export const scopeStateKey = (organizationId: string, scope: string, group: string): Deno.KvKey => [
  "edge_state",
  organizationId,
  scope,
  group,
];
/** When the organization's public data last changed (ISO): "live sections as of". */
export const changedAtKey = (organizationId: string): Deno.KvKey => [
  "edge_changed",
  organizationId,
];

/** The generation every change of an organization bumps (versions of download caches). */
export const CENTER_SCOPE = "*";
/** The scope of the organization-wide part of a project's pages' generations. */
export const ORG_SCOPE = "org";
/** The scope of the trust center's pages. */
export const CENTER_PAGES_SCOPE = "center";

/** The generation keys a stored page depends on (its group's, in its scope). */
export function dependencies(
  page: { organizationId: string; projectId: string | null; group?: string },
): Deno.KvKey[] {
  const group = page.group ?? "";
  return page.projectId === null
    ? [generationKey(page.organizationId, CENTER_PAGES_SCOPE, group)]
    : [
      generationKey(page.organizationId, ORG_SCOPE, group),
      generationKey(page.organizationId, page.projectId, group),
    ];
}

/** The signature of a set of generation entries, as records keep it. */
export function signature(entries: readonly Deno.KvEntryMaybe<unknown>[]): string[] {
  return entries.map((entry) => entry.versionstamp ?? "");
}

/**
 * What a commit changed of one organization's public data: the collections (key register
 * names) mutated organization-wide, and per project. `all`: everything (a touch by hand).
 */
export type PublicChange =
  | { organization: ReadonlySet<string>; projects: ReadonlyMap<string, ReadonlySet<string>> }
  | "all";

/** Whether a group reads any of `collections` (`changes` is read by the groups declaring it). */
function readsAny(group: PageGroup, collections: Iterable<string>): boolean {
  for (const collection of collections) if (group.reads.includes(collection)) return true;
  return false;
}

/**
 * The groups a change re-renders, as `scope:groupId` (scope: a project's id, `org` for that
 * group of every project, `center`), in a stable order.
 */
export function groupsOf(change: PublicChange): string[] {
  const wanted: string[] = [];
  const everything = change === "all";
  const organization = everything ? [] : ["changes", ...change.organization];
  for (const group of PROJECT_GROUPS) {
    if (everything || readsAny(group, organization)) wanted.push(`${ORG_SCOPE}:${group.id}`);
  }
  if (!everything) {
    for (const [projectId, collections] of change.projects) {
      for (const group of PROJECT_GROUPS) {
        if (readsAny(group, collections)) wanted.push(`${projectId}:${group.id}`);
      }
    }
  }
  const anywhere = everything
    ? []
    : [...organization, ...[...change.projects.values()].flatMap((set) => [...set])];
  for (const group of CENTER_GROUPS) {
    if (everything || readsAny(group, anywhere)) wanted.push(`${CENTER_PAGES_SCOPE}:${group.id}`);
  }
  return wanted;
}

/**
 * Adds to `op` the bump of the generations of the groups that read what `change` altered in
 * one organization, with `*`, its change time, and the job that renders those groups again and
 * purges them at the edge (the job names them; two commits stage two jobs, which together
 * render the union). The service's commit path calls it for every commit that alters public
 * data (src/store/public_writes.ts); writers do not.
 */
export function stageTouch(
  op: Deno.AtomicOperation,
  organizationId: string,
  change: PublicChange,
  now: Date,
): Deno.AtomicOperation {
  // Only the versionstamp a write gives the key matters; the value is the time, for people.
  const at = now.toISOString();
  const groups = groupsOf(change);
  for (const entry of groups) {
    const colon = entry.indexOf(":");
    op.set(generationKey(organizationId, entry.slice(0, colon), entry.slice(colon + 1)), at);
  }
  op.set(generationKey(organizationId, CENTER_SCOPE), at).set(changedAtKey(organizationId), at);
  stageJob(
    op,
    change === "all"
      ? { kind: RENDER_JOB, organizationId }
      : { kind: RENDER_JOB, organizationId, groups },
    { now },
  );
  return op;
}

/** `stageTouch` of every page of the organization (after a removal made around the path). */
export function touchOrganization(
  op: Deno.AtomicOperation,
  organizationId: string,
  now: Date,
): Deno.AtomicOperation {
  return stageTouch(op, organizationId, "all", now);
}

/** A purge the edge did not acknowledge, kept until one succeeds (live status shows it). */
export interface PurgeFailure {
  organizationId: string;
  error: string;
  at: string;
}

const purgeFailureKey = (
  organizationId: string,
): Deno.KvKey => ["edge_purge_failed", organizationId];

export async function recordPurgeFailure(kv: Deno.Kv, failure: PurgeFailure): Promise<void> {
  await kv.set(purgeFailureKey(failure.organizationId), failure);
}

export async function clearPurgeFailure(kv: Deno.Kv, organizationId: string): Promise<void> {
  await kv.delete(purgeFailureKey(organizationId));
}

/** Organizations whose last purge failed, at most `limit`. */
export async function listPurgeFailures(kv: Deno.Kv, limit: number): Promise<PurgeFailure[]> {
  const failures: PurgeFailure[] = [];
  for await (const entry of kv.list<PurgeFailure>({ prefix: ["edge_purge_failed"] }, { limit })) {
    failures.push(entry.value);
  }
  return failures;
}
