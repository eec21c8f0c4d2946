/**
 * The key register's area of what a project publishes: publications and their jobs, custom
 * domains, the log entries naming it, and its updates. A collection added to the store is
 * registered in the area it belongs to; src/store/tenant_keys.ts joins the areas into
 * `KEY_COLLECTIONS`.
 *
 * @module
 */
import { type CollectionRule, RECORD_PROJECT_PAGES } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const PUBLICATION_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
