/**
 * Every Deno KV key the service uses is built here and nowhere else.
 *
 * Part 0 is a plural snake_case collection; secondary indexes are
 * `<collection>_by_<field>` and hold ids, never copies of the record.
 */

export const userKey = (id: string) => ["users", id] as const;
export const userByIdpSubKey = (sub: string) => ["users_by_idp_sub", sub] as const;

export const organizationKey = (id: string) => ["organizations", id] as const;
export const organizationBySlugKey = (slug: string) => ["organizations_by_slug", slug] as const;

/** An organization's public profile (display name, logo, security contact…). */
export const organizationProfileKey = (organizationId: string) =>
  ["organization_profiles", organizationId] as const;
/** A logo that was uploaded: its type and size by SHA-256; what makes its public URL answer. */
export const logoKey = (sha256: string) => ["logos", sha256] as const;

export const membershipKey = (organizationId: string, userId: string) =>
  ["memberships", organizationId, userId] as const;
export const membershipsOfOrganizationPrefix = (organizationId: string) =>
  ["memberships", organizationId] as const;
export const membershipByUserKey = (userId: string, organizationId: string) =>
  ["memberships_by_user", userId, organizationId] as const;
export const membershipsByUserPrefix = (userId: string) => ["memberships_by_user", userId] as const;

/** Marks that a user has run onboarding; guards "one bootstrap per user". */
export const bootstrapByUserKey = (userId: string) => ["bootstraps_by_user", userId] as const;

export const invitationKey = (tokenHash: string) => ["invitations", tokenHash] as const;

export const projectKey = (id: string) => ["projects", id] as const;
export const projectsPrefix = () => ["projects"] as const;
export const projectBySlugKey = (slug: string) => ["projects_by_slug", slug] as const;
export const projectByHostedSubdomainKey = (subdomain: string) =>
  ["projects_by_hosted_subdomain", subdomain] as const;
export const projectByOrganizationKey = (organizationId: string, projectId: string) =>
  ["projects_by_organization", organizationId, projectId] as const;
export const projectsByOrganizationPrefix = (organizationId: string) =>
  ["projects_by_organization", organizationId] as const;
export const sigstoreIdentitiesKey = (projectId: string) =>
  ["sigstore_identities", projectId] as const;
export const provenanceSubjectsKey = (projectId: string) =>
  ["provenance_subjects", projectId] as const;

export const controlKey = (projectId: string, controlId: string) =>
  ["controls", projectId, controlId] as const;
export const controlsOfProjectPrefix = (projectId: string) => ["controls", projectId] as const;
export const controlByKeyKey = (projectId: string, key: string) =>
  ["controls_by_key", projectId, key] as const;
/** How many controls a project has, kept by control creation to enforce the cap. */
export const controlCountKey = (projectId: string) => ["control_counts", projectId] as const;
/** The framework criteria a member mapped a custom control to, by the control's key. */
export const controlCriteriaKey = (projectId: string, key: string) =>
  ["control_criteria", projectId, key] as const;
export const controlCriteriaPrefix = (projectId: string) =>
  ["control_criteria", projectId] as const;

export const accountKey = (id: string) => ["accounts", id] as const;
export const accountByEmailKey = (email: string) => ["accounts_by_email", email] as const;
export const accountsPrefix = () => ["accounts"] as const;
export const setupTokenKey = () => ["setup_tokens", "first_run"] as const;
export const authorizationCodeKey = (codeHash: string) =>
  ["authorization_codes", codeHash] as const;
export const refreshTokenKey = (tokenHash: string) => ["refresh_tokens", tokenHash] as const;
export const signInTicketKey = (ticketHash: string) => ["sign_in_tickets", ticketHash] as const;
export const refreshFamilyKey = (familyId: string) => ["refresh_families", familyId] as const;
export const loginFailuresKey = (scope: "email" | "ip", value: string) =>
  ["login_failures", scope, value] as const;
/** An emailed one-time sign-in link, by the SHA-256 of its token. */
export const signInLinkKey = (tokenHash: string) => ["sign_in_links", tokenHash] as const;
/** How many sign-in links were asked for an email or from an address in the current window. */
export const signInLinkRequestsKey = (scope: "email" | "ip", value: string) =>
  ["sign_in_link_requests", scope, value] as const;
/** Set when a sign-in link request's email starts being sent, so a rerun never sends it twice. */
export const signInLinkSendingKey = (requestId: string) =>
  ["sign_in_link_sending", requestId] as const;

export const signingKeyKey = (purpose: string) => ["signing_keys", purpose] as const;
/** A public key that has signed for `purpose`, kept after rotation so old signatures verify. */
export const signingPublicKeyKey = (purpose: string, kid: string) =>
  ["signing_public_keys", purpose, kid] as const;
export const signingPublicKeysPrefix = (purpose: string) =>
  ["signing_public_keys", purpose] as const;

/** A blob's metadata record; its presence is what makes the blob visible. */
export const blobMetaKey = (blobKey: string) => ["blobs", blobKey] as const;
/** The `index`-th (0-based) chunk of a blob's bytes. */
export const blobChunkKey = (blobKey: string, index: number) =>
  ["blob_chunks", blobKey, index] as const;
/** The blob collector's cycle under way, and a summary of the last one that ended. */
export const blobGcStateKey = () => ["blob_gc", "state"] as const;
export const blobGcLastKey = () => ["blob_gc", "last"] as const;
/** A blob the mark phase of collector cycle `runId` found referenced. */
export const blobGcMarkKey = (runId: string, blobKey: string) =>
  ["blob_gc_marks", runId, blobKey] as const;
export const blobGcMarksPrefix = (runId: string) => ["blob_gc_marks", runId] as const;

export const collectorKey = (id: string) => ["collectors", id] as const;
export const collectorByProjectKey = (projectId: string, id: string) =>
  ["collectors_by_project", projectId, id] as const;
export const collectorsByProjectPrefix = (projectId: string) =>
  ["collectors_by_project", projectId] as const;
export const collectorBySecretHashKey = (hash: string) =>
  ["collectors_by_secret_hash", hash] as const;
/** Newest activity of a collector, as a KvU64 of epoch milliseconds raised with `max`. */
export const collectorLastSeenKey = (id: string) => ["collector_last_seen", id] as const;

export const evidenceKey = (id: string) => ["evidence", id] as const;
/**
 * The one evidence index, ordered by observation time: the last entry under a type is the
 * latest evidence, and listings merge the types. VEX documents sent as vulnerability_scan
 * evidence are indexed under the stream `VEX_STREAM` instead, so that the latest scan
 * stays one read away and so do the latest VEX documents.
 */
export const VEX_STREAM = "vulnerability_scan.vex";
export const evidenceByObservationKey = (
  projectId: string,
  evidenceType: string,
  observedAtMs: number,
  id: string,
) => ["evidence_by_observation", projectId, evidenceType, observedAtMs, id] as const;
export const evidenceByObservationPrefix = (projectId: string, evidenceType: string) =>
  ["evidence_by_observation", projectId, evidenceType] as const;
export const idempotencyKey = (projectId: string, key: string) =>
  ["idempotency_keys", projectId, key] as const;
/** Bumped by every evidence commit of a project; a batch too large to check record by record checks it. */
export const evidenceIngestStampKey = (projectId: string) =>
  ["evidence_ingest_stamps", projectId] as const;
/**
 * A payload digest (`sha256:<hex>`) a published version of the project cites, with the first
 * version citing it: a record with that checksum is never pruned (docs/lifecycle.md).
 */
export const evidenceCitationKey = (projectId: string, checksum: string) =>
  ["evidence_citations", projectId, checksum] as const;
/** A project's and an organization's own evidence retention setting. */
export const projectRetentionKey = (projectId: string) => ["project_retention", projectId] as const;
export const organizationRetentionKey = (organizationId: string) =>
  ["organization_retention", organizationId] as const;
/** Where a project's pruning stands: its run under way (resumable) and its citation backfill. */
export const pruneStateKey = (projectId: string) => ["prune_states", projectId] as const;

export const latestSignalsKey = (projectId: string) => ["signals_latest", projectId] as const;

/** Evaluations stored one entry per control, as before snapshots; read once, then deleted. */
export const evaluationsOfProjectPrefix = (projectId: string) =>
  ["evaluations", projectId] as const;
/** The project's current evaluation snapshot: its id, evaluation time and chunk count. */
export const evaluationsHeadKey = (projectId: string) => ["evaluations_head", projectId] as const;
/** The `index`-th (0-based) chunk of an evaluation snapshot; immutable once written. */
export const evaluationChunkKey = (projectId: string, snapshotId: string, index: number) =>
  ["evaluation_chunks", projectId, snapshotId, index] as const;
/** A snapshot being written: its chunks exist but no head points at them yet. */
export const evaluationPendingKey = (projectId: string, snapshotId: string) =>
  ["evaluations_pending", projectId, snapshotId] as const;
export const evaluationsPendingPrefix = (projectId: string) =>
  ["evaluations_pending", projectId] as const;
/** A job of the live layer (src/domain/jobs.ts), by id. */
export const jobKey = (id: string) => ["jobs", id] as const;
/** The due-time index: one entry per scheduled or running job, ordered by when it is due. */
export const jobDueKey = (dueAt: number, id: string) => ["jobs_due", dueAt, id] as const;
export const jobsDuePrefix = () => ["jobs_due"] as const;
/**
 * The same due entries by tenant (organization) and queue (a job's lane, else its class), so
 * one tenant's backlog is read apart from everyone else's (src/store/job_index.ts).
 */
export const jobTenantDueKey = (tenant: string, queue: string, dueAt: number, id: string) =>
  ["jobs_due_by_tenant", tenant, queue, dueAt, id] as const;
export const jobTenantDuePrefix = (tenant: string, queue: string) =>
  ["jobs_due_by_tenant", tenant, queue] as const;
/** A tenant and queue whose due entries were taken out of `jobs_due` (parked) to be read apart. */
export const jobBacklogKey = (tenant: string, queue: string) =>
  ["jobs_backlog", tenant, queue] as const;
export const jobBacklogsPrefix = () => ["jobs_backlog"] as const;
/** Dead-lettered jobs, ordered by when they died. */
export const jobDeadKey = (deadAt: number, id: string) => ["jobs_dead", deadAt, id] as const;
export const jobsDeadPrefix = () => ["jobs_dead"] as const;
/** Marks a one-time upgrade of stored data as done. */
export const upgradeKey = (name: string) => ["upgrades", name] as const;

export const publishJobKey = (projectId: string, jobId: string) =>
  ["publish_jobs", projectId, jobId] as const;
export const publicationKey = (projectId: string, version: number) =>
  ["publications", projectId, version] as const;
export const publicationsOfProjectPrefix = (projectId: string) =>
  ["publications", projectId] as const;
/** A part of a large publication's `states` and `changes`, written with the publication. */
export const publicationPartKey = (projectId: string, version: number, index: number) =>
  ["publication_parts", projectId, version, index] as const;
export const publicationPartsOfProjectPrefix = (projectId: string) =>
  ["publication_parts", projectId] as const;
/** The latest published version of a project: a pointer, not a scan. */
export const latestPublicationKey = (projectId: string) =>
  ["publications_latest", projectId] as const;

/**
 * Public search's index (src/store/search_index.ts): one entry per term (a normalised prefix,
 * at most 16 characters) and project or organization, ordered by how well it matches (0–2 a
 * project's own names, 3–6 its organization's) and a short sort name.
 */
export const searchTermKey = (term: string, rank: number, sort: string, id: string) =>
  ["search_terms", term, rank, sort, id] as const;
export const searchTermPrefix = (term: string) => ["search_terms", term] as const;
/** The searchable (public, published) projects of an organization, by sort name. */
export const searchProjectByOrganizationKey = (
  organizationId: string,
  sort: string,
  projectId: string,
) => ["search_projects_by_organization", organizationId, sort, projectId] as const;
export const searchProjectsByOrganizationPrefix = (organizationId: string) =>
  ["search_projects_by_organization", organizationId] as const;
/** Bumped by every commit that writes an organization's search entries (they check it). */
export const searchOrganizationStampKey = (organizationId: string) =>
  ["search_organization_stamps", organizationId] as const;
/** Set once the index holds every project written before it existed. */
export const searchBackfillKey = () => ["search_index_meta", "backfill"] as const;

export const domainKey = (id: string) => ["domains", id] as const;
/** The domain record that verified a name: the one project its Host is served for. */
export const domainByNameKey = (domain: string) => ["domains_by_name", domain] as const;
/** One project's claim on a name (pending or verified); several projects may claim one name. */
export const domainClaimKey = (domain: string, projectId: string) =>
  ["domain_claims", domain, projectId] as const;
export const domainByProjectKey = (projectId: string, id: string) =>
  ["domains_by_project", projectId, id] as const;
export const domainsByProjectPrefix = (projectId: string) =>
  ["domains_by_project", projectId] as const;

/** A short lease that serializes work on one resource across requests and instances. */
export const leaseKey = (name: string, id: string) => ["leases", name, id] as const;

/** The publication log's size and frontier (the hashes of its largest complete subtrees). */
export const logHeadKey = () => ["log_head"] as const;
/** The hash of the log's complete subtree of 2^level leaves starting at leaf index·2^level. */
export const logNodeKey = (level: number, index: number) => ["log_nodes", level, index] as const;
/** The log entry at a leaf index: its canonical text and the publication it records. */
export const logEntryKey = (index: number) => ["log_entries", index] as const;
/** The leaf index of a publication in the log. */
export const logEntryByPublicationKey = (projectId: string, version: number) =>
  ["log_entries_by_publication", projectId, version] as const;
/**
 * The leaf index of the entry that recorded an organization taking a released organization
 * slug, or one of its projects a released custom domain (`kind` "organization" | "domain").
 */
export const logNameChangeKey = (organizationId: string, kind: string, name: string) =>
  ["log_name_changes", organizationId, kind, name] as const;
/** Every such entry of an organization (its own slug's and its projects' domains'). */
export const logNameChangesPrefix = (organizationId: string) =>
  ["log_name_changes", organizationId] as const;
/** The leaf indexes of every logged publication of a project, by version. */
export const logEntriesOfProjectPrefix = (projectId: string) =>
  ["log_entries_by_publication", projectId] as const;

/** An organization's answers to security questions, by id, and how many it keeps. */
export const answerKey = (organizationId: string, id: string) =>
  ["answers", organizationId, id] as const;
export const answersPrefix = (organizationId: string) => ["answers", organizationId] as const;
export const answerCountKey = (organizationId: string) =>
  ["answer_counts", organizationId] as const;
/**
 * An organization's answers in reading order (category, question, id; lower case, the question
 * cut at 200 characters), and how many entries that index holds: pages read it when the count
 * equals the answers' (src/store/answers.ts).
 */
export const answerOrderKey = (
  organizationId: string,
  category: string,
  question: string,
  id: string,
) => ["answers_by_order", organizationId, category, question, id] as const;
export const answersByOrderPrefix = (organizationId: string) =>
  ["answers_by_order", organizationId] as const;
export const answerOrderCountKey = (organizationId: string) =>
  ["answers_by_order_counts", organizationId] as const;
/**
 * The word index of an organization's answers (src/store/answer_terms.ts): one entry per word
 * and answer, the words each answer is indexed under, and how many answers it holds.
 */
export const answerTermKey = (organizationId: string, word: string, answerId: string) =>
  ["answers_by_term", organizationId, word, answerId] as const;
export const answerTermsPrefix = (organizationId: string) =>
  ["answers_by_term", organizationId] as const;
export const answerTermsOfKey = (organizationId: string, answerId: string) =>
  ["answer_terms_of", organizationId, answerId] as const;
export const answerTermCountKey = (organizationId: string) =>
  ["answers_by_term_counts", organizationId] as const;

/**
 * An organization's questionnaires (src/store/questionnaires.ts): the record by time-ordered
 * id, how many it keeps, each row (suggestions) by sheet index and row number, and each row's
 * review decision beside it.
 */
export const questionnaireKey = (organizationId: string, id: string) =>
  ["questionnaires", organizationId, id] as const;
export const questionnairesPrefix = (organizationId: string) =>
  ["questionnaires", organizationId] as const;
export const questionnaireCountKey = (organizationId: string) =>
  ["questionnaire_counts", organizationId] as const;
export const questionnaireRowKey = (
  organizationId: string,
  id: string,
  sheet: number,
  row: number,
) => ["questionnaire_rows", organizationId, id, sheet, row] as const;
export const questionnaireRowsPrefix = (organizationId: string, id: string) =>
  ["questionnaire_rows", organizationId, id] as const;
export const questionnaireDecisionKey = (
  organizationId: string,
  id: string,
  sheet: number,
  row: number,
) => ["questionnaire_decisions", organizationId, id, sheet, row] as const;
export const questionnaireDecisionsPrefix = (organizationId: string, id: string) =>
  ["questionnaire_decisions", organizationId, id] as const;

/** An organization's current subprocessors, by id. */
export const subprocessorKey = (organizationId: string, id: string) =>
  ["subprocessors", organizationId, id] as const;
export const subprocessorsPrefix = (organizationId: string) =>
  ["subprocessors", organizationId] as const;
/** Every addition, change and removal of a subprocessor, numbered in the order made. */
export const subprocessorEventKey = (organizationId: string, sequence: number) =>
  ["subprocessor_events", organizationId, sequence] as const;
export const subprocessorEventsPrefix = (organizationId: string) =>
  ["subprocessor_events", organizationId] as const;

/** An organization's certifications and attestations, by id. */
export const certificationKey = (organizationId: string, id: string) =>
  ["certifications", organizationId, id] as const;
export const certificationsPrefix = (organizationId: string) =>
  ["certifications", organizationId] as const;
/** The id of the organization's last added certification: checked so adds cannot pass the cap. */
export const certificationWritesKey = (organizationId: string) =>
  ["certification_writes", organizationId] as const;

/** A project's updates (incidents, advisories, changes), by id. */
export const updateKey = (projectId: string, id: string) => ["updates", projectId, id] as const;
export const updatesPrefix = (projectId: string) => ["updates", projectId] as const;
/** A project's updates by the time they were posted (ids): lists newest first. */
export const updateByPostedKey = (projectId: string, postedAt: string, id: string) =>
  ["updates_by_posted", projectId, postedAt, id] as const;
export const updatesByPostedPrefix = (projectId: string) =>
  ["updates_by_posted", projectId] as const;
/**
 * A project's incidents and advisories not yet resolved (ids), by the time they were posted
 * (the key keeps the name it had when only incidents were indexed).
 */
export const openIncidentKey = (projectId: string, postedAt: string, id: string) =>
  ["updates_open_incidents", projectId, postedAt, id] as const;
export const openIncidentsPrefix = (projectId: string) =>
  ["updates_open_incidents", projectId] as const;

/** A project's webhook endpoints, by id. */
export const webhookKey = (projectId: string, id: string) => ["webhooks", projectId, id] as const;
export const webhooksOfProjectPrefix = (projectId: string) => ["webhooks", projectId] as const;
/** The endpoints a user registered (the project's id as value), to cap them per user. */
export const webhookByUserKey = (userId: string, id: string) =>
  ["webhooks_by_user", userId, id] as const;
export const webhooksByUserPrefix = (userId: string) => ["webhooks_by_user", userId] as const;
/**
 * Rewritten by every creation and removal of a webhook in a scope (`project` or `user`), so
 * that counting and adding commit together: a count made stale by another write fails the check.
 */
export const webhookWritesKey = (scope: "project" | "user", id: string) =>
  ["webhook_writes", scope, id] as const;
/** One delivery of an event to an endpoint; ids are time-ordered, so the newest list last. */
export const webhookDeliveryKey = (webhookId: string, deliveryId: string) =>
  ["webhook_deliveries", webhookId, deliveryId] as const;
export const webhookDeliveriesPrefix = (webhookId: string) =>
  ["webhook_deliveries", webhookId] as const;
export const allWebhookDeliveriesPrefix = () => ["webhook_deliveries"] as const;
/** The delivery made for an event to an endpoint: what makes the fan-out idempotent. */
export const webhookDeliveryByEventKey = (webhookId: string, eventId: string) =>
  ["webhook_deliveries_by_event", webhookId, eventId] as const;
/** An endpoint's recent attempts: failures in a row, and until when it is left alone. */
export const webhookCircuitKey = (webhookId: string) => ["webhook_circuits", webhookId] as const;
/** The attempt in flight to an endpoint, under its subscriber (the user who registered it). */
export const webhookInFlightKey = (subscriberId: string, webhookId: string) =>
  ["webhook_in_flight", subscriberId, webhookId] as const;
export const webhookInFlightPrefix = (subscriberId: string) =>
  ["webhook_in_flight", subscriberId] as const;
/** Rewritten by each attempt a subscriber starts, so two starts cannot both pass its cap. */
export const webhookInFlightWritesKey = (subscriberId: string) =>
  ["webhook_in_flight_writes", subscriberId] as const;
/** A destination's (an endpoint URL's origin) attempts without an answer in a row. */
export const webhookDestinationKey = (origin: string) => ["webhook_destinations", origin] as const;
/** Test pings asked for in the current window, per endpoint or per project. */
export const webhookPingCountKey = (scope: "webhook" | "project", id: string) =>
  ["webhook_ping_counts", scope, id] as const;

/** An organization's documents (metadata; the bytes are blobs of kind "document"). */
export const documentKey = (organizationId: string, id: string) =>
  ["documents", organizationId, id] as const;
export const documentsPrefix = (organizationId: string) => ["documents", organizationId] as const;
/** The id of the organization's last added document: checked so adds cannot pass the cap. */
export const documentWritesKey = (organizationId: string) =>
  ["document_writes", organizationId] as const;
/** Each version of an organization's click-through NDA, numbered from 1. */
export const ndaVersionKey = (organizationId: string, version: number) =>
  ["nda_versions", organizationId, version] as const;
export const ndaVersionsPrefix = (organizationId: string) =>
  ["nda_versions", organizationId] as const;
/** Document access settings (auto-approved email domains). */
export const documentSettingsKey = (organizationId: string) =>
  ["document_settings", organizationId] as const;
/** Access requests for restricted documents, by time-ordered id (UUIDv7). */
export const accessRequestKey = (organizationId: string, id: string) =>
  ["access_requests", organizationId, id] as const;
export const accessRequestsPrefix = (organizationId: string) =>
  ["access_requests", organizationId] as const;
/** Access links, by time-ordered id (UUIDv7); the token is only in the link's URL. */
export const accessLinkKey = (organizationId: string, id: string) =>
  ["access_links", organizationId, id] as const;
export const accessLinksPrefix = (organizationId: string) =>
  ["access_links", organizationId] as const;
export const accessLinkByTokenKey = (tokenHash: string) =>
  ["access_links_by_token", tokenHash] as const;
/** Every download through an access link, by time-ordered id (UUIDv7). */
/**
 * A PDF's copy stamped for one recipient, by the original's SHA-256 and the SHA-256 of the
 * recipient's lowercased email: stamped once, served again on every later download.
 */
/**
 * A recipient's stamped copy of one organization's document. Keyed by the organization first:
 * two organizations holding the same bytes never share (or enumerate) each other's copies.
 */
export const documentStampKey = (
  organizationId: string,
  documentSha256: string,
  recipientHash: string,
) => ["document_stamps", organizationId, documentSha256, recipientHash] as const;
export const documentDownloadKey = (organizationId: string, id: string) =>
  ["document_downloads", organizationId, id] as const;
export const documentDownloadsPrefix = (organizationId: string) =>
  ["document_downloads", organizationId] as const;
/** An email to an owner about an access request, with its sending state. */
export const ownerNoticeKey = (id: string) => ["owner_notices", id] as const;
/** Access requests counted per client address or email, for throttling. */
export const accessRequestAttemptsKey = (scope: "ip" | "email", subject: string) =>
  ["access_request_attempts", scope, subject] as const;
/** An email subscription (pending or confirmed). */
export const subscriptionKey = (id: string) => ["subscriptions", id] as const;
/** Subscription id by scope and address; the scope is a project id or "organization". */
export const subscriptionByScopeKey = (organizationId: string, scope: string, email: string) =>
  ["subscriptions_by_scope", organizationId, scope, email] as const;
export const subscriptionsByScopePrefix = (organizationId: string, scope?: string) =>
  scope === undefined
    ? ["subscriptions_by_scope", organizationId] as const
    : ["subscriptions_by_scope", organizationId, scope] as const;
/** The secret that signs subscription links (confirm, unsubscribe). */
export const subscriptionLinkSecretKey = () => ["secrets", "subscription_links"] as const;
/** A fixed-window counter of subscribe requests (per client address) or confirmations (per email). */
export const subscribeCounterKey = (scope: "ip" | "email", value: string) =>
  ["subscribe_counters", scope, value] as const;
/** One email (confirmation or notification) and its sending state. */
export const mailDeliveryKey = (id: string) => ["mail_deliveries", id] as const;
export const mailDeliveriesPrefix = () => ["mail_deliveries"] as const;

/** A deletion scheduled for a project or an organization (kind "project" | "organization"). */
export const deletionKey = (kind: string, id: string) => ["deletions", kind, id] as const;
/**
 * What remains of a deleted project's or organization's slug: its SHA-256, so its public
 * routes answer 410 Gone instead of 404, without keeping the name itself.
 */
export const deletedSlugKey = (kind: string, slugSha256: string) =>
  ["deleted_slugs", kind, slugSha256] as const;
