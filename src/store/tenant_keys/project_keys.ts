/**
 * The enumeration of one project's keys (`projectKeys`), which an organization's includes for
 * each of its projects.
 *
 * @module
 */
import { distinct, edgeScopeKeys, type Found, listKeys, scan, tenantJobKeys } from "./walk.ts";

export interface ProjectRef {
  id: string;
  organizationId: string;
  slug: string;
  hostedSubdomain: string | null;
  createdAt?: string;
}

/** Adds every key of one project (see `projectKeys`). */
export async function* fillProject(kv: Deno.Kv, project: ProjectRef): Found {
  const id = project.id;
  yield ["projects", id];
  yield ["deletions", "project", id];
  yield ["projects_by_slug", project.slug];
  if (project.hostedSubdomain) yield ["projects_by_hosted_subdomain", project.hostedSubdomain];
  yield ["projects_by_organization", project.organizationId, id];
  if (project.createdAt) {
    yield ["projects_by_created", project.organizationId, project.createdAt, project.slug, id];
  }
  // The access rule of its restricted documents, kept under the organization.
  yield ["access_project_rules", project.organizationId, id];
  // The page-view counters of its public pages, kept under the organization by path.
  const pages = `/trust/${project.slug}`;
  for await (const { key } of kv.list({ prefix: ["page_views", project.organizationId] })) {
    const path = key[3];
    if (
      typeof path === "string" &&
      (path === pages || path.startsWith(`${pages}/`) || path.startsWith(`${pages}.`))
    ) yield key;
  }
  for (
    const collection of [
      "sigstore_identities",
      "provenance_subjects",
      "controls",
      "controls_by_key",
      "control_counts",
      "control_criteria",
      "evidence_by_observation",
      "idempotency_keys",
      "evidence_ingest_stamps",
      "evidence_citations",
      "project_retention",
      "prune_states",
      "signals_latest",
      "evaluations",
      "evaluations_head",
      "evaluation_chunks",
      "evaluations_pending",
      "publish_jobs",
      "publications",
      "publication_parts",
      "publications_latest",
      "log_entries_by_publication",
      "updates",
      "updates_by_posted",
      "updates_open_incidents",
      "collectors_by_project",
      "collectors_by_created",
      "domains_by_project",
      "domains_by_created",
      "webhooks",
    ]
  ) {
    const own = [collection, id];
    if ((await kv.get(own)).versionstamp !== null) yield own;
    yield* listKeys(kv, own);
  }
  for await (const entry of kv.list({ prefix: ["evidence_by_observation", id] })) {
    yield ["evidence", entry.key[4] as string];
  }
  for await (const entry of kv.list<number>({ prefix: ["log_entries_by_publication", id] })) {
    yield ["log_entries", entry.value];
  }
  // The entries recording that it took a released custom domain (indexed by organization).
  for await (
    const entry of kv.list<{ index: number; projectId: string | null }>({
      prefix: ["log_name_changes", project.organizationId],
    })
  ) {
    if (entry.value.projectId !== id) continue;
    yield entry.key;
    yield ["log_entries", entry.value.index];
  }
  for await (const entry of kv.list<string>({ prefix: ["collectors_by_project", id] })) {
    const collectorId = entry.key[2] as string;
    const collector = await kv.get<{ secretHash?: string }>(["collectors", collectorId]);
    yield ["collectors", collectorId];
    yield ["collector_last_seen", collectorId];
    if (collector.value?.secretHash) {
      const byHash = ["collectors_by_secret_hash", collector.value.secretHash];
      if ((await kv.get(byHash)).value === collectorId) yield byHash;
    }
  }
  for await (const entry of kv.list<string>({ prefix: ["domains_by_project", id] })) {
    const domainId = entry.key[2] as string;
    yield ["domains", domainId];
    const domain = (await kv.get<{ domain: string }>(["domains", domainId])).value;
    if (!domain) continue;
    yield ["domain_claims", domain.domain, id];
    const byName = ["domains_by_name", domain.domain];
    if ((await kv.get(byName)).value === domainId) yield byName;
  }
  const webhookIds = new Set<string>();
  for await (
    const entry of kv.list<{ id: string; createdBy: string }>({ prefix: ["webhooks", id] })
  ) {
    const webhookId = entry.value.id;
    webhookIds.add(webhookId);
    yield ["webhooks_by_user", entry.value.createdBy, webhookId];
    yield ["webhook_in_flight", entry.value.createdBy, webhookId];
    yield ["webhook_circuits", webhookId];
    yield ["webhook_ping_counts", "webhook", webhookId];
    yield* listKeys(kv, ["webhook_deliveries", webhookId]);
    yield* listKeys(kv, ["webhook_deliveries_by_event", webhookId]);
  }
  yield ["webhook_writes", "project", id];
  yield ["webhook_ping_counts", "project", id];
  for await (const entry of kv.list<string>({ prefix: ["webhook_writes", "user"] })) {
    if (webhookIds.has(entry.value)) yield entry.key;
  }
  // The organization's certifications and documents attached to this project are its own.
  for (const collection of ["certifications", "documents"]) {
    const prefix = [collection, project.organizationId];
    for await (const entry of kv.list<{ projectId?: string; sha256?: string }>({ prefix })) {
      if (entry.value.projectId !== id) continue;
      yield entry.key;
      if (entry.value.sha256) {
        yield* listKeys(kv, ["document_stamps", project.organizationId, entry.value.sha256]);
      }
    }
  }
  const subscriptionIds = new Set<string>();
  for await (
    const entry of kv.list<string>({
      prefix: ["subscriptions_by_scope", project.organizationId, id],
    })
  ) {
    yield entry.key;
    yield ["subscriptions", entry.value];
    subscriptionIds.add(entry.value);
    const record = (await kv.get<{ createdAt?: string }>(["subscriptions", entry.value])).value;
    if (record?.createdAt) {
      yield ["subscriptions_by_created", project.organizationId, record.createdAt, entry.value];
    }
  }
  yield* scan<{ subscriptionId?: string; event?: { projectId?: string } | null }>(
    kv,
    "mail_deliveries",
    (d) => subscriptionIds.has(d.subscriptionId ?? "") || d.event?.projectId === id,
  );
  yield* scan<unknown>(kv, "leases", (_, key) => key[2] === id);
  yield* scan<unknown>(kv, "search_terms", (_, key) => key[4] === id);
  for await (
    const entry of kv.list({ prefix: ["search_projects_by_organization", project.organizationId] })
  ) {
    if (entry.key[3] === id) yield entry.key;
  }
  yield* edgeScopeKeys(kv, project.organizationId, id);
  yield* tenantJobKeys(
    kv,
    project.organizationId,
    (job) => (job.message as { projectId?: unknown }).projectId === id,
  );
}

/**
 * Every key that holds data of one project, each once: its record and indexes, controls,
 * collectors, evidence, evaluations, publications (the log's entry keys of its versions
 * included: they are kept, erased to their hash, see `RETAINED_COLLECTIONS`), domains, updates,
 * webhooks and their deliveries, subscriptions to it and their emails, stored pages, waiting
 * jobs and leases. Keys that may not exist are listed too (deleting them is harmless). Blobs
 * are not listed: they are content-addressed and may be shared (the collector removes the
 * ones nothing references).
 */
export async function* projectKeys(
  kv: Deno.Kv,
  projectId: string,
): AsyncGenerator<Deno.KvKey> {
  const project = (await kv.get<ProjectRef>(["projects", projectId])).value;
  if (!project) return;
  yield* distinct(fillProject(kv, project));
}
