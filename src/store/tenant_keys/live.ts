/**
 * The key register's area of jobs and live work: stored public pages, the job store, public
 * search's index, the status counts and scheduled deletions. A collection added to the store is
 * registered in the area it belongs to; src/store/tenant_keys.ts joins the areas into
 * `KEY_COLLECTIONS`.
 *
 * @module
 */
import { type CollectionRule, DELETION_PAGES } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const LIVE_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
