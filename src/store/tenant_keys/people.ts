/**
 * The key register's area of people (users, accounts and their sign-in) and visitors known only by
 * an email address. A collection added to the store is registered in the area it belongs to;
 * src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const PEOPLE_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
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
};
