/**
 * The key register's area of the organization's answer library and its questionnaires, with their
 * indexes and counts. A collection added to the store is registered in the area it belongs to;
 * src/store/tenant_keys.ts joins the areas into `KEY_COLLECTIONS`.
 *
 * @module
 */
import type { CollectionRule } from "./rules.ts";

/** This area's collections, by name (a key's first part). */
export const ANSWER_COLLECTIONS: Readonly<Record<string, CollectionRule>> = {
  // Organization-wide public data.
  answers: { owner: "organization", public: { organization: 1 }, note: "[orgId, id]" },
  answer_counts: { owner: "organization", public: "none", note: "[orgId]" },
  answers_by_order: {
    owner: "organization",
    public: "none",
    note: "[orgId, category, question, id]",
  },
  answers_by_order_counts: { owner: "organization", public: "none", note: "[orgId]" },
  answers_by_term: { owner: "organization", public: "none", note: "[orgId, word, answerId]" },
  answer_terms_of: { owner: "organization", public: "none", note: "[orgId, answerId]" },
  answers_by_term_counts: { owner: "organization", public: "none", note: "[orgId]" },
  questionnaires: { owner: "organization", public: "none", note: "[orgId, id]" },
  questionnaire_counts: { owner: "organization", public: "none", note: "[orgId]" },
  questionnaire_rows: { owner: "organization", public: "none", note: "[orgId, id, sheet, row]" },
  questionnaire_decisions: {
    owner: "organization",
    public: "none",
    note: "[orgId, id, sheet, row]",
  },
};
