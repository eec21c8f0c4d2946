/**
 * The key register's area of the service's own collections: keys, secrets, blobs, logos, the
 * publication log and upgrade markers. A collection added to the store is registered in the area
 * it belongs to; src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const SERVICE_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
