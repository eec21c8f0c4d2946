/**
 * The key register's area of a trust center's content (subprocessors, certifications, documents,
 * the NDA) and the requests, links and downloads of its documents. A collection added to the store
 * is registered in the area it belongs to; src/store/tenant_keys.ts joins the areas into
 * `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const TRUST_CENTER_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
