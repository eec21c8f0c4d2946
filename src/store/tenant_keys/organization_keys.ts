/**
 * The enumeration of one organization's keys (`organizationKeys`): its own, and its projects'
 * (src/store/tenant_keys/project_keys.ts).
 *
 * @module
 */
import { fillProject, type ProjectRef } from "./project_keys.ts";
import { distinct, edgeScopeKeys, type Found, listKeys, scan, tenantJobKeys } from "./walk.ts";

/** Adds the organization's own keys, without its projects' (see `organizationKeys`). */
async function* fillOrganization(kv: Deno.Kv, organizationId: string): Found {
  const id = organizationId;
  const organization = (await kv.get<{ slug: string }>(["organizations", id])).value;
  yield ["organizations", id];
  yield ["deletions", "organization", id];
  if (organization) {
    const bySlug = ["organizations_by_slug", organization.slug];
    if ((await kv.get(bySlug)).value === id) yield bySlug;
  }
  for (
    const collection of [
      "organization_profiles",
      "organization_retention",
      "answers",
      "answer_counts",
      "answers_by_order",
      "answers_by_order_counts",
      "answers_by_term",
      "answer_terms_of",
      "answers_by_term_counts",
      "questionnaires",
      "questionnaire_counts",
      "questionnaire_rows",
      "questionnaire_decisions",
      "subprocessors",
      "subprocessor_events",
      "certifications",
      "certification_writes",
      "documents",
      "document_writes",
      "nda_versions",
      "document_settings",
      "access_requests",
      "access_links",
      "document_downloads",
      "buyer_orgs",
      "buyer_members",
      "buyer_grants",
      "buyer_tokens",
      "buyer_sign_ins",
      "access_rules",
      "access_project_rules",
      "access_settings",
      "access_events",
      "access_summaries",
      "page_views",
      "subscriptions_by_scope",
      "subscriptions_by_created",
      "memberships_by_created",
      "projects_by_created",
      "edge_gen",
      "edge_state",
      "edge_changed",
      "edge_purge_failed",
      "jobs_backlog",
      "search_projects_by_organization",
      "search_organization_stamps",
    ]
  ) {
    const own = [collection, id];
    if ((await kv.get(own)).versionstamp !== null) yield own;
    yield* listKeys(kv, own);
  }
  for await (
    const entry of kv.list<{ userId: string }>({ prefix: ["memberships", id] })
  ) {
    yield entry.key;
    yield ["memberships_by_user", entry.value.userId, id];
    const marker = ["bootstraps_by_user", entry.value.userId];
    if ((await kv.get(marker)).value === id) yield marker;
  }
  yield* listKeys(kv, ["document_stamps", id]);
  // The entries recording that it (or its project) took a released name: erased to their hash.
  for await (const entry of kv.list<{ index: number }>({ prefix: ["log_name_changes", id] })) {
    yield entry.key;
    yield ["log_entries", entry.value.index];
  }
  for await (const entry of kv.list<{ tokenHash: string }>({ prefix: ["access_tokens", id] })) {
    yield entry.key;
    yield ["access_tokens_by_hash", entry.value.tokenHash];
  }
  for await (const { key } of kv.list({ prefix: ["buyer_tokens", id] })) {
    yield ["buyer_tokens_by_hash", key[2] as string];
  }
  // Throttling counters of the visitors who asked for its documents (they reset).
  for await (const entry of kv.list<{ email?: string }>({ prefix: ["access_requests", id] })) {
    if (entry.value.email) yield ["access_request_attempts", "email", entry.value.email];
  }
  const subscriptionIds = new Set<string>();
  for await (const entry of kv.list<string>({ prefix: ["subscriptions_by_scope", id] })) {
    yield ["subscriptions", entry.value];
    subscriptionIds.add(entry.value);
  }
  const scopes = new Set<string>();
  for await (const entry of kv.list({ prefix: ["edge_state", id] })) {
    scopes.add(entry.key[2] as string);
  }
  for (const scope of scopes) yield* edgeScopeKeys(kv, id, scope);
  yield* scan<{ organizationId?: string }>(kv, "invitations", (v) => v.organizationId === id);
  yield* scan<{ organizationId?: string }>(
    kv,
    "owner_notices",
    (v) => v.organizationId === id,
  );
  yield* scan<{ organizationId?: string }>(
    kv,
    "access_links_by_token",
    (v) => v.organizationId === id,
  );
  yield* scan<{ subscriptionId?: string; event?: { organizationId?: string } | null }>(
    kv,
    "mail_deliveries",
    (d) => subscriptionIds.has(d.subscriptionId ?? "") || d.event?.organizationId === id,
  );
  yield* scan<unknown>(kv, "leases", (_, key) => key[2] === id);
  yield* scan<unknown>(kv, "search_terms", (_, key) => key[4] === id);
  yield* tenantJobKeys(kv, id, () => true);
}

/**
 * Every key that holds data of one organization, each once: its own (record, profile,
 * memberships, answers, subprocessors, certifications, documents and their stamps, NDA, access
 * requests, links and downloads, subscriptions and their emails, invitations, owner notices,
 * stored pages, waiting jobs) and every key of each of its projects (`projectKeys`). With
 * `projects: false`, only the organization's own. Yielded as found (projects first, in the
 * order of their index, then the organization's own), so the memory of a walk does not grow
 * with the organization beyond `distinct`'s one string per key; a caller that needs another
 * order (deletion ranks them) sorts its own list.
 */
export async function* organizationKeys(
  kv: Deno.Kv,
  organizationId: string,
  options: { projects?: boolean } = {},
): AsyncGenerator<Deno.KvKey> {
  yield* distinct(organizationFound(kv, organizationId, options.projects !== false));
}

/** The keys of `organizationKeys`, repeats included. */
async function* organizationFound(kv: Deno.Kv, organizationId: string, projects: boolean): Found {
  if (projects) {
    for await (
      const entry of kv.list<string>({ prefix: ["projects_by_organization", organizationId] })
    ) {
      const project = (await kv.get<ProjectRef>(["projects", entry.key[2] as string])).value;
      if (project) yield* fillProject(kv, project);
      else yield entry.key;
    }
  }
  yield* fillOrganization(kv, organizationId);
}
