/**
 * The key register's area of organizations, their members and invitations, and the personal access
 * tokens members create. A collection added to the store is registered in the area it belongs to;
 * src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const ORGANIZATION_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
