/**
 * The key register's area of buyers and access: buyer organizations, their people, grants, tokens
 * and reads, the access rules and settings, page views and the notices to owners. A collection
 * added to the store is registered in the area it belongs to; src/store/tenant_keys.ts joins the
 * areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const BUYER_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
  buyer_tokens_meta: {
    owner: "service",
    public: "none",
    note: "the hash index's backfill marker (tokens made before the index)",
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
};
