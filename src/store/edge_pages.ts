/**
 * Stored public pages: what the render job made of each public URL, kept in KV per
 * (path, variant, coding) and served as bytes (src/edge/serve.ts). A record remembers the
 * generations it was rendered at; a change that alters public pages bumps them in its own
 * commit (`touchProject`, `touchOrganization`) and stages the job that renders again, so the
 * request path can tell a current record from one that waits for its re-render.
 *
 * Generations are counted per organization in three scopes: `org` (organization-wide data:
 * profile, certifications, documents, subprocessors, answers), one per project (its
 * publications, updates, settings, domains), and `*`, bumped by every change of either kind.
 * A project's pages depend on `org` and their project; the trust center's pages on `*`.
 */
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

/** What the last render of one scope did: the generation it rendered, and whether it purged. */
export interface ScopeState {
  rendered: string;
  purged: boolean;
  /** The paths stored for this scope, each as `variant path`. */
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
export const generationKey = (organizationId: string, scope: string): Deno.KvKey => [
  "edge_gen",
  organizationId,
  scope,
];
export const scopeStateKey = (organizationId: string, scope: string): Deno.KvKey => [
  "edge_state",
  organizationId,
  scope,
];
/** When the organization's public data last changed (ISO): "live sections as of". */
export const changedAtKey = (organizationId: string): Deno.KvKey => [
  "edge_changed",
  organizationId,
];

/** The scope of the trust center's pages, and the organization-wide one. */
export const CENTER_SCOPE = "*";
export const ORG_SCOPE = "org";

/** The generation keys a page of `projectId` (null: the trust center) depends on. */
export function dependencies(organizationId: string, projectId: string | null): Deno.KvKey[] {
  return projectId === null
    ? [generationKey(organizationId, CENTER_SCOPE)]
    : [generationKey(organizationId, ORG_SCOPE), generationKey(organizationId, projectId)];
}

/** The signature of a set of generation entries, as records keep it. */
export function signature(entries: readonly Deno.KvEntryMaybe<unknown>[]): string[] {
  return entries.map((entry) => entry.versionstamp ?? "");
}

/**
 * Adds to `op` the bump of the generations of `scopes` (a project's id, or `ORG_SCOPE` for
 * organization-wide data) of one organization, with `*`, its change time, and the job that
 * renders its pages again and purges the edge. The service's commit path calls it for every
 * commit that alters public data (src/store/public_writes.ts); writers do not.
 */
export function stageTouch(
  op: Deno.AtomicOperation,
  organizationId: string,
  scopes: Iterable<string>,
  now: Date,
): Deno.AtomicOperation {
  // Only the versionstamp a write gives the key matters; the value is the time, for people.
  const at = now.toISOString();
  for (const scope of scopes) op.set(generationKey(organizationId, scope), at);
  op.set(generationKey(organizationId, CENTER_SCOPE), at).set(changedAtKey(organizationId), at);
  stageJob(op, { kind: RENDER_JOB, organizationId }, { now });
  return op;
}

/** `stageTouch` of every page of the organization (after a removal made around the path). */
export function touchOrganization(
  op: Deno.AtomicOperation,
  organizationId: string,
  now: Date,
): Deno.AtomicOperation {
  return stageTouch(op, organizationId, [ORG_SCOPE], now);
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
