/**
 * The key register's area of projects and what hangs on them: controls, collectors, evidence,
 * signals and evaluations. A collection added to the store is registered in the area it belongs
 * to; src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import { type CollectionRule, RECORD_PROJECT_PAGES } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const PROJECT_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
