/**
 * The key register's area of subscriptions to a trust center's updates and the emails sent for
 * them. A collection added to the store is registered in the area it belongs to;
 * src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const SUBSCRIPTION_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
