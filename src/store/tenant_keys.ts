/**
 * Which KV keys hold a tenant's data: every collection (a key's first part) the service writes,
 * with whose it is, and generators that enumerate every key of one project, one organization
 * (its projects included) or one user. Deletion removes what they list; the organization export
 * reads it. A collection added to the store must be added to `KEY_COLLECTIONS` too:
 * `tests/store/tenant_keys_test.ts` fails on any key builder in `src/` whose collection is not
 * here, and on any key a tenant's world writes that names the tenant and is not enumerated.
 *
 * Most keys are found by prefix (`["controls", projectId]`); some from the records that point
 * at them (a collector's secret-hash index, a domain's name index, a webhook's deliveries); a
 * few global collections without a tenant index are scanned and filtered (`scan` below): they
 * expire by themselves (invitations, notices, emails) or stay small (leases, dead jobs).
 */
import type { Job } from "../domain/jobs.ts";
import type { PublicEffect, PublicTarget } from "./public_writes.ts";
import { jobDueKey, jobKey } from "./keys.ts";
import { CompactStringSet } from "../lib/compact_set.ts";

/**
 * Whose data a collection holds: `project` and `organization` keys belong to one tenant,
 * `user` keys to one person, `visitor` keys to an email address outside any account
 * (subscribers, access-request visitors), `service` keys to no one (keys, the log's tree,
 * content-addressed blobs, upgrade markers, indexes of the job store).
 */
export type KeyOwner = "project" | "organization" | "user" | "visitor" | "service";

export interface CollectionRule {
  owner: KeyOwner;
  /**
   * Which public pages a write to it alters (src/store/public_writes.ts adds their touch to the
   * commit): every collection says, "none" included.
   */
  public: PublicEffect;
  /** How a tenant's or person's keys of this collection are found, or why it is service-wide. */
  note: string;
}

/** A record's pages: its project's (the record holds the project's id). */
const RECORD_PROJECT_PAGES: PublicEffect = {
  targets: (_key, value) => {
    const projectId = (value as { projectId?: unknown } | null)?.projectId;
    return typeof projectId === "string" ? [{ projectId }] : [];
  },
};

/**
 * A scheduled deletion's pages (they answer 410 from scheduling until an undo): the project's
 * and its organization's for a project, the organization's for an organization.
 */
const DELETION_PAGES: PublicEffect = {
  targets: (_key, value) => {
    const record = value as { kind?: unknown; targetId?: unknown; organizationId?: unknown };
    if (typeof record?.organizationId !== "string") return [];
    const organization: PublicTarget = { organizationId: record.organizationId };
    return record.kind === "project" && typeof record.targetId === "string"
      ? [organization, { organizationId: record.organizationId, projectId: record.targetId }]
      : [organization];
  },
};

/** Every collection of the KV, by its name (a key's first part). */
export const KEY_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
  // Organizations and membership.
  organizations: { owner: "organization", public: { organization: 1 }, note: "[id]" },
  organizations_by_slug: { owner: "organization", public: "none", note: "[slug], from the record" },
  organization_profiles: { owner: "organization", public: { organization: 1 }, note: "[orgId]" },
  organization_retention: { owner: "organization", public: "none", note: "[orgId]" },
  memberships: { owner: "organization", public: "none", note: "[orgId, userId]" },
  memberships_by_created: {
    owner: "organization",
    public: "none",
    note: "[orgId, createdAt, userId]",
  },
  memberships_by_user: {
    owner: "user",
    public: "none",
    note: "[userId, orgId]; an organization's too",
  },
  bootstraps_by_user: {
    owner: "user",
    public: "none",
    note: "[userId] → orgId; an organization's too",
  },
  invitations: {
    owner: "organization",
    public: "none",
    note: "[tokenHash]; scanned by organizationId",
  },
  // Personal access tokens (src/store/access_tokens.ts): stored hashed, expiring with the token.
  access_tokens: { owner: "organization", public: "none", note: "[orgId, id], expiring" },
  access_tokens_by_hash: {
    owner: "organization",
    public: "none",
    note: "[tokenHash], from the records; expiring",
  },
  // Projects and what hangs on them.
  projects: { owner: "project", public: { project: 1 }, note: "[id]" },
  projects_by_slug: { owner: "project", public: "none", note: "[slug], from the record" },
  projects_by_hosted_subdomain: {
    owner: "project",
    public: "none",
    note: "[subdomain], from the record",
  },
  projects_by_organization: { owner: "project", public: "none", note: "[orgId, projectId]" },
  projects_by_created: {
    owner: "project",
    public: "none",
    note: "[orgId, createdAt, slug, projectId]",
  },
  sigstore_identities: { owner: "project", public: "none", note: "[projectId]" },
  provenance_subjects: { owner: "project", public: "none", note: "[projectId]" },
  controls: { owner: "project", public: { project: 1 }, note: "[projectId, controlId]" },
  controls_by_key: { owner: "project", public: "none", note: "[projectId, key]" },
  control_counts: { owner: "project", public: "none", note: "[projectId]" },
  control_criteria: { owner: "project", public: { project: 1 }, note: "[projectId, key]" },
  collectors: {
    owner: "project",
    public: RECORD_PROJECT_PAGES,
    note: "[id], from collectors_by_project",
  },
  collectors_by_project: { owner: "project", public: { project: 1 }, note: "[projectId, id]" },
  collectors_by_created: { owner: "project", public: "none", note: "[projectId, createdAt, id]" },
  collectors_by_secret_hash: {
    owner: "project",
    public: "none",
    note: "[hash], from the collector record",
  },
  collector_last_seen: {
    owner: "project",
    public: "none",
    note: "[id], from collectors_by_project",
  },
  evidence: { owner: "project", public: "none", note: "[id], from evidence_by_observation" },
  evidence_by_observation: { owner: "project", public: "none", note: "[projectId, type, ms, id]" },
  idempotency_keys: { owner: "project", public: "none", note: "[projectId, key]" },
  evidence_ingest_stamps: { owner: "project", public: "none", note: "[projectId]" },
  evidence_citations: { owner: "project", public: "none", note: "[projectId, checksum]" },
  project_retention: { owner: "project", public: "none", note: "[projectId]" },
  prune_states: { owner: "project", public: "none", note: "[projectId]" },
  signals_latest: { owner: "project", public: { project: 1 }, note: "[projectId]" },
  evaluations: { owner: "project", public: "none", note: "[projectId, …] (legacy form)" },
  evaluations_head: { owner: "project", public: "none", note: "[projectId]" },
  evaluation_chunks: { owner: "project", public: "none", note: "[projectId, snapshotId, i]" },
  evaluations_pending: { owner: "project", public: "none", note: "[projectId, snapshotId]" },
  publish_jobs: { owner: "project", public: "none", note: "[projectId, jobId]" },
  publications: { owner: "project", public: { project: 1 }, note: "[projectId, version]" },
  publication_parts: { owner: "project", public: { project: 1 }, note: "[projectId, version, i]" },
  publications_latest: { owner: "project", public: { project: 1 }, note: "[projectId]" },
  domains: {
    owner: "project",
    public: RECORD_PROJECT_PAGES,
    note: "[id], from domains_by_project",
  },
  domains_by_name: {
    owner: "project",
    public: "none",
    note: "[name] when it names the project's domain",
  },
  domain_claims: { owner: "project", public: "none", note: "[name, projectId]" },
  domains_by_project: { owner: "project", public: { project: 1 }, note: "[projectId, id]" },
  domains_by_created: { owner: "project", public: "none", note: "[projectId, createdAt, id]" },
  log_entries_by_publication: { owner: "project", public: "none", note: "[projectId, version]" },
  log_name_changes: {
    owner: "organization",
    // The trust center's JSON shows the change of its slug (`publisherChange`).
    public: { organization: 1 },
    note:
      "[orgId, kind, name]: the log entry recording that it (or its project) took a released organization slug or custom domain; written with the organization or the verified domain",
  },
  updates: { owner: "project", public: { project: 1 }, note: "[projectId, id]" },
  updates_by_posted: {
    owner: "project",
    public: { project: 1 },
    note: "[projectId, postedAt, id]",
  },
  updates_open_incidents: {
    owner: "project",
    public: { project: 1 },
    note: "[projectId, postedAt, id]",
  },
  webhooks: { owner: "project", public: "none", note: "[projectId, id]" },
  webhooks_by_user: {
    owner: "project",
    public: "none",
    note: "[userId, webhookId], from the webhook",
  },
  webhook_writes: {
    owner: "project",
    public: "none",
    note: "['project', projectId] / ['user', userId]",
  },
  webhook_deliveries: { owner: "project", public: "none", note: "[webhookId, deliveryId]" },
  webhook_deliveries_by_event: { owner: "project", public: "none", note: "[webhookId, eventId]" },
  webhook_circuits: { owner: "project", public: "none", note: "[webhookId]" },
  webhook_in_flight: {
    owner: "project",
    public: "none",
    note: "[userId, webhookId], from the webhook",
  },
  webhook_in_flight_writes: { owner: "user", public: "none", note: "[userId]" },
  webhook_destinations: {
    owner: "service",
    public: "none",
    note: "[origin]: a host's attempts without an answer in a row, shared; expires by itself",
  },
  webhook_ping_counts: {
    owner: "project",
    public: "none",
    note: "['webhook', id] / ['project', id]",
  },
  // Organization-wide public data.
  answers: { owner: "organization", public: { organization: 1 }, note: "[orgId, id]" },
  answer_counts: { owner: "organization", public: "none", note: "[orgId]" },
  answers_by_order: {
    owner: "organization",
    public: "none",
    note: "[orgId, category, question, id]",
  },
  answers_by_order_counts: { owner: "organization", public: "none", note: "[orgId]" },
  answers_by_term: { owner: "organization", public: "none", note: "[orgId, word, answerId]" },
  answer_terms_of: { owner: "organization", public: "none", note: "[orgId, answerId]" },
  answers_by_term_counts: { owner: "organization", public: "none", note: "[orgId]" },
  questionnaires: { owner: "organization", public: "none", note: "[orgId, id]" },
  questionnaire_counts: { owner: "organization", public: "none", note: "[orgId]" },
  questionnaire_rows: { owner: "organization", public: "none", note: "[orgId, id, sheet, row]" },
  questionnaire_decisions: {
    owner: "organization",
    public: "none",
    note: "[orgId, id, sheet, row]",
  },
  subprocessors: { owner: "organization", public: { organization: 1 }, note: "[orgId, id]" },
  subprocessor_events: { owner: "organization", public: { organization: 1 }, note: "[orgId, n]" },
  certifications: { owner: "organization", public: { organization: 1 }, note: "[orgId, id]" },
  certification_writes: { owner: "organization", public: "none", note: "[orgId]" },
  documents: { owner: "organization", public: { organization: 1 }, note: "[orgId, id]" },
  document_writes: { owner: "organization", public: "none", note: "[orgId]" },
  nda_versions: { owner: "organization", public: { organization: 1 }, note: "[orgId, version]" },
  document_settings: { owner: "organization", public: "none", note: "[orgId]" },
  document_stamps: {
    owner: "organization",
    public: "none",
    note: "[orgId, documentSha256, recipientHash]",
  },
  access_requests: { owner: "organization", public: "none", note: "[orgId, id]" },
  access_links: { owner: "organization", public: "none", note: "[orgId, id]" },
  access_links_by_token: {
    owner: "organization",
    public: "none",
    note: "[tokenHash]; scanned by orgId",
  },
  document_downloads: { owner: "organization", public: "none", note: "[orgId, id]" },
  // Buyer organizations of a vendor, their grants, tokens and reads (src/store/buyers.ts).
  buyer_orgs: { owner: "organization", public: "none", note: "[orgId, domain]" },
  buyer_members: { owner: "organization", public: "none", note: "[orgId, domain, email]" },
  buyer_grants: { owner: "organization", public: "none", note: "[orgId, domain, documentId]" },
  buyer_tokens: { owner: "organization", public: "none", note: "[orgId, tokenHash]" },
  buyer_tokens_by_hash: {
    owner: "organization",
    public: "none",
    note: "[tokenHash] → orgId, from buyer_tokens; expiring",
  },
  buyer_sign_ins: { owner: "organization", public: "none", note: "[orgId, tokenHash], expiring" },
  access_rules: { owner: "organization", public: "none", note: "[orgId, documentId]" },
  access_project_rules: {
    owner: "organization",
    public: "none",
    note: "[orgId, projectId]; removed with the project too",
  },
  access_settings: { owner: "organization", public: "none", note: "[orgId]" },
  access_events: { owner: "organization", public: "none", note: "[orgId, id], expiring" },
  access_summaries: {
    owner: "organization",
    public: "none",
    note: "[orgId, month, domain, person, documentId], expiring",
  },
  page_views: { owner: "organization", public: "none", note: "[orgId, day, path] counters" },
  owner_notices: { owner: "organization", public: "none", note: "[id]; scanned by organizationId" },
  subscriptions: {
    owner: "organization",
    public: "none",
    note: "[id], from subscriptions_by_scope",
  },
  subscriptions_by_scope: {
    owner: "organization",
    public: "none",
    note: "[orgId, projectId|'organization', email]",
  },
  subscriptions_by_created: {
    owner: "organization",
    public: "none",
    note: "[orgId, createdAt, id]",
  },
  mail_deliveries: {
    owner: "organization",
    public: "none",
    note: "[id]; scanned by subscription and event",
  },
  // Stored public pages (src/store/edge_pages.ts).
  edge_page: {
    owner: "organization",
    public: "none",
    note: "[path, variant, coding], from edge_state's paths",
  },
  edge_gen: { owner: "organization", public: "none", note: "[orgId, scope, group]" },
  edge_state: { owner: "organization", public: "none", note: "[orgId, scope, group]" },
  edge_changed: { owner: "organization", public: "none", note: "[orgId]" },
  edge_purge_failed: { owner: "organization", public: "none", note: "[orgId]" },
  // The job store: a job is its tenant's while it waits.
  jobs: {
    owner: "organization",
    public: "none",
    note: "[id], from jobs_due_by_tenant and jobs_dead",
  },
  jobs_due: { owner: "organization", public: "none", note: "[dueAt, id], from the job" },
  jobs_due_by_tenant: { owner: "organization", public: "none", note: "[orgId, queue, dueAt, id]" },
  jobs_backlog: { owner: "organization", public: "none", note: "[orgId, queue]" },
  jobs_dead: {
    owner: "organization",
    public: "none",
    note: "[deadAt, id]; scanned by the job's tenant",
  },
  leases: {
    owner: "organization",
    public: "none",
    note: "[name, id]; scanned for the tenant's ids",
  },
  // Public search's index (src/store/search_index.ts): derived, rebuilt from the records.
  search_terms: {
    owner: "project",
    public: "none",
    note: "[term, rank, sort, id]; scanned by id (derived)",
  },
  search_projects_by_organization: {
    owner: "project",
    public: "none",
    note: "[orgId, sort, projectId]",
  },
  search_organization_stamps: { owner: "organization", public: "none", note: "[orgId]" },
  search_index_meta: { owner: "service", public: "none", note: "the index's backfill marker" },
  // The trust center's status (src/store/public_status.ts): counts of every tenant's answers.
  public_status_hours: {
    owner: "service",
    public: "none",
    note: "[hour]: public answers served and failed per UTC hour, expiring after 40 days",
  },
  // Deletion (src/store/deletions.ts).
  deletions: {
    owner: "organization",
    public: DELETION_PAGES,
    note: "[kind, id]: removed by the deletion it schedules",
  },
  deleted_slugs: {
    owner: "service",
    public: "none",
    note:
      "[kind, sha256(name)]: kept so a deleted slug (or a deleted project's document) answers 410, without the name",
  },
  // People.
  users: { owner: "user", public: "none", note: "[id]" },
  users_by_idp_sub: { owner: "user", public: "none", note: "[sub], from the record" },
  accounts: {
    owner: "user",
    public: "none",
    note: "[id] (built-in sign-in; id = the user's idpSub)",
  },
  accounts_by_email: { owner: "user", public: "none", note: "[email], from the account" },
  authorization_codes: {
    owner: "user",
    public: "none",
    note: "[hash]; scanned by accountId (minutes)",
  },
  refresh_tokens: { owner: "user", public: "none", note: "[hash]; scanned by accountId" },
  refresh_families: { owner: "user", public: "none", note: "[familyId]; scanned by accountId" },
  sign_in_tickets: {
    owner: "user",
    public: "none",
    note: "[hash]; scanned by accountId (minutes)",
  },
  sign_in_links: { owner: "user", public: "none", note: "[hash]; scanned by accountId (minutes)" },
  sign_in_link_requests: {
    owner: "user",
    public: "none",
    note: "['email', email] / ['ip', ip] counters",
  },
  sign_in_link_sending: {
    owner: "user",
    public: "none",
    note: "[requestId] marker, no personal data",
  },
  login_failures: { owner: "user", public: "none", note: "['email', email] / ['ip', ip] counters" },
  // Visitors known only by an email address.
  subscribe_counters: {
    owner: "visitor",
    public: "none",
    note: "['email', email] / ['ip', ip] counters",
  },
  access_request_attempts: {
    owner: "visitor",
    public: "none",
    note: "['email', email] / ['ip', ip] counters",
  },
  // The service itself.
  setup_tokens: { owner: "service", public: "none", note: "the first-run setup token" },
  signing_keys: { owner: "service", public: "none", note: "the service's private keys" },
  signing_public_keys: { owner: "service", public: "none", note: "every public key that signed" },
  secrets: { owner: "service", public: "none", note: "the subscription links' secret" },
  blobs: {
    owner: "service",
    public: "none",
    note: "content-addressed, shared: the blob collector removes them",
  },
  blob_chunks: { owner: "service", public: "none", note: "content-addressed, shared" },
  blob_gc: {
    owner: "service",
    public: "none",
    note: "the blob collector's cycle and last summary",
  },
  blob_gc_marks: {
    owner: "service",
    public: "none",
    note: "[cycle, blobKey]: a cycle's marks, removed as it ends",
  },
  logos: {
    owner: "service",
    public: "none",
    note: "content-addressed logo metadata (type, size), shared",
  },
  log_head: { owner: "service", public: "none", note: "the publication log's size and frontier" },
  log_nodes: { owner: "service", public: "none", note: "the log's hashes" },
  log_entries: {
    owner: "service",
    public: "none",
    note: "the log's entry texts: a deleted project's are erased to their leaf hash",
  },
  upgrades: { owner: "service", public: "none", note: "one-time upgrade markers" },
};

/** Collections whose entries outlive their tenant, reduced (the log's entries: hash only). */
export const RETAINED_COLLECTIONS: ReadonlySet<string> = new Set(["log_entries"]);

const CODINGS = ["identity", "gzip", "br"] as const;

/** Keys as they are found, possibly more than once (`distinct` drops the repeats). */
type Found = AsyncGenerator<Deno.KvKey>;

async function* listKeys(kv: Deno.Kv, prefix: Deno.KvKey): Found {
  for await (const entry of kv.list({ prefix }, { batchSize: 500 })) yield entry.key;
}

/** Entries of a whole collection whose value passes `match` (collections with no index). */
async function* scan<T>(
  kv: Deno.Kv,
  collection: string,
  match: (value: T, key: Deno.KvKey) => boolean,
): Found {
  for await (const entry of kv.list<T>({ prefix: [collection] }, { batchSize: 500 })) {
    if (entry.value !== null && match(entry.value, entry.key)) yield entry.key;
  }
}

/**
 * Keys yielded once each, in the order found, as they are found: nothing is gathered ahead of
 * the reader; what stays is each yielded key's text in a `CompactStringSet` (to drop repeats),
 * so the memory of a walk is its keys' bytes and 16 more per key, outside the JS heap's
 * objects, not the keys and their entries.
 */
async function* distinct(found: Found): AsyncGenerator<Deno.KvKey> {
  const seen = new CompactStringSet();
  for await (const key of found) {
    if (seen.add(keyText(key))) yield key;
  }
}

/** A key as one string, distinct for distinct keys (parts tagged by type). */
function keyText(key: Deno.KvKey): string {
  let text = "";
  for (const part of key) {
    if (typeof part === "string") text += `s${JSON.stringify(part)}`;
    else if (typeof part === "number") text += `n${Object.is(part, -0) ? "-0" : part};`;
    else if (typeof part === "bigint") text += `b${part};`;
    else if (typeof part === "boolean") text += part ? "t" : "f";
    else text += `u${Array.from(part as Uint8Array).join(".")};`;
  }
  return text;
}

/**
 * The keys of stored pages of one edge scope (a project's id, or the trust center's): each
 * group's state lists its paths; the generations of the scope's groups (and of the form of
 * earlier releases, one state and generation per scope).
 */
async function* edgeScopeKeys(kv: Deno.Kv, organizationId: string, scope: string): Found {
  const legacy = ["edge_state", organizationId, scope];
  const states = [await kv.get<{ paths?: string[]; writing?: string[] }>(legacy)];
  for await (
    const entry of kv.list<{ paths?: string[]; writing?: string[] }>({ prefix: legacy })
  ) states.push(entry);
  for (const state of states) {
    for (const entry of state.value?.paths ?? []) {
      const space = entry.indexOf(" ");
      for (const coding of CODINGS) {
        yield ["edge_page", entry.slice(space + 1), entry.slice(0, space), coding];
      }
    }
    // Paths a render announced before writing them (src/edge/render.ts), in every variant.
    for (const path of state.value?.writing ?? []) {
      for (const variant of ["any", "html", "md", "json"]) {
        for (const coding of CODINGS) yield ["edge_page", path, variant, coding];
      }
    }
    if (state.versionstamp !== null) yield state.key;
  }
  const generation = ["edge_gen", organizationId, scope];
  if ((await kv.get(generation)).versionstamp !== null) yield generation;
  yield* listKeys(kv, generation);
}

/** The job keys of `job` (record, due entries, dead entry). */
function* jobKeys(job: Job): Generator<Deno.KvKey> {
  yield jobKey(job.id);
  if (job.state === "dead" && job.deadAt) yield ["jobs_dead", Date.parse(job.deadAt), job.id];
  else yield jobDueKey(job.dueAt, job.id);
}

/** The waiting and dead jobs of an organization that `match`, with their index entries. */
async function* tenantJobKeys(
  kv: Deno.Kv,
  organizationId: string,
  match: (job: Job) => boolean,
): Found {
  for await (
    const entry of kv.list({ prefix: ["jobs_due_by_tenant", organizationId] }, { batchSize: 500 })
  ) {
    const id = entry.key[entry.key.length - 1] as string;
    const job = (await kv.get<Job>(jobKey(id))).value;
    // An entry whose job is gone (removed while it ran) leads nowhere: it and the time
    // index's entry of the same job are the tenant's to remove.
    if (!job) {
      yield entry.key;
      yield jobDueKey(entry.key[3] as number, id);
    } else if (match(job)) {
      yield entry.key;
      yield* jobKeys(job);
    }
  }
  for await (const entry of kv.list<string>({ prefix: ["jobs_dead"] }, { batchSize: 500 })) {
    const job = (await kv.get<Job>(jobKey(entry.value))).value;
    if (job && (job.tag?.tenant ?? "") === organizationId && match(job)) yield* jobKeys(job);
  }
}

interface ProjectRef {
  id: string;
  organizationId: string;
  slug: string;
  hostedSubdomain: string | null;
  createdAt?: string;
}

/** Adds every key of one project (see `projectKeys`). */
async function* fillProject(kv: Deno.Kv, project: ProjectRef): Found {
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

/**
 * Every key that holds data of one person: their user record and indexes, memberships (both
 * directions), bootstrap marker, built-in account, sessions and grants, sign-in links and
 * throttling counters under their email, and webhook bookkeeping under their id. The webhooks
 * they registered on a project belong to the project (and go with it), not to them.
 */
export async function* userKeys(kv: Deno.Kv, userId: string): AsyncGenerator<Deno.KvKey> {
  yield* distinct(userFound(kv, userId));
}

/** The keys of `userKeys`, repeats included. */
async function* userFound(kv: Deno.Kv, userId: string): Found {
  const user = (await kv.get<{ idpSub: string; email: string }>(["users", userId])).value;
  yield ["users", userId];
  yield* listKeys(kv, ["memberships_by_user", userId]);
  for await (const entry of kv.list({ prefix: ["memberships_by_user", userId] })) {
    const organizationId = entry.key[2] as string;
    yield ["memberships", organizationId, userId];
    const membership = await kv.get<{ createdAt?: string }>(
      ["memberships", organizationId, userId],
    );
    if (membership.value?.createdAt) {
      yield ["memberships_by_created", organizationId, membership.value.createdAt, userId];
    }
    // The person's access tokens for that organization.
    const tokens = kv.list<{ userId: string; tokenHash: string }>({
      prefix: ["access_tokens", organizationId],
    });
    for await (const token of tokens) {
      if (token.value.userId !== userId) continue;
      yield token.key;
      yield ["access_tokens_by_hash", token.value.tokenHash];
    }
  }
  yield ["bootstraps_by_user", userId];
  yield ["webhook_writes", "user", userId];
  yield ["webhook_in_flight_writes", userId];
  yield* listKeys(kv, ["webhook_in_flight", userId]);
  if (!user) return;
  yield ["users_by_idp_sub", user.idpSub];
  const account = (await kv.get<{ email: string }>(["accounts", user.idpSub])).value;
  const emails = new Set([user.email.toLowerCase()]);
  if (account) {
    yield ["accounts", user.idpSub];
    yield ["accounts_by_email", account.email.toLowerCase()];
    emails.add(account.email.toLowerCase());
  }
  for (const email of emails) {
    yield ["login_failures", "email", email];
    yield ["sign_in_link_requests", "email", email];
  }
  yield* scan<{ email?: string }>(
    kv,
    "invitations",
    (v) => emails.has((v.email ?? "").toLowerCase()),
  );
  const mine = (v: { accountId?: string }) => v.accountId === user.idpSub;
  for (
    const collection of [
      "authorization_codes",
      "refresh_tokens",
      "refresh_families",
      "sign_in_tickets",
      "sign_in_links",
    ]
  ) {
    yield* scan(kv, collection, mine);
  }
}

/** Whether `key` is in a collection kept after its tenant goes (reduced to hashes). */
export function isRetainedKey(key: Deno.KvKey): boolean {
  return RETAINED_COLLECTIONS.has(String(key[0]));
}
