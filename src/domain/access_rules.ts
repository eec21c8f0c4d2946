/**
 * Rule groups (issue 35, docs/ads.md): besides a restricted document's own rule and the trust
 * center's rule for every restricted document, a rule for one project's restricted documents.
 * The most specific decides: the document's own, else its project's, else the trust center's
 * (access settings' `defaultRule`), else the built-in default. The buyer's explanation names
 * the rule that decided.
 */
import { z } from "@hono/zod-openapi";
import { AccessRule, type Decision } from "./buyers.ts";
import { DateTime, Uuid } from "./common.ts";

export const RuleSource = z.enum(["document", "project", "organization", "default"]).openapi({
  description:
    "Which rule decides: the document's own, its project's (every restricted document of the project), the trust center's for every restricted document, or the built-in default (auto-approved domains, else an owner decides)",
});
export type RuleSource = z.infer<typeof RuleSource>;

/** The rule of one project's restricted documents, as stored. */
export const ProjectAccessRule = AccessRule.omit({ documentId: true }).extend({
  projectId: Uuid,
  updatedAt: DateTime,
}).openapi("ProjectAccessRule");
export type ProjectAccessRule = z.infer<typeof ProjectAccessRule>;

export const ProjectAccessRuleEntry = ProjectAccessRule.extend({
  projectName: z.string(),
}).openapi("ProjectAccessRuleEntry");

export const ProjectAccessRulesResponse = z.object({
  rules: z.array(ProjectAccessRuleEntry).openapi({ description: "By project name" }),
}).openapi("ProjectAccessRulesResponse");

/** A restricted document's rule in the list, with the rule it comes from. */
export const AccessRuleEntry = AccessRule.extend({
  title: z.string(),
  projectId: Uuid.nullable().openapi({ description: "The document's project; null: none" }),
  source: RuleSource,
  projectName: z.string().nullable().openapi({
    description: "source project: the project whose rule applies",
  }),
}).openapi("AccessRuleEntry");

export const AccessRuleEntriesResponse = z.object({
  rules: z.array(AccessRuleEntry).openapi({
    description: "One per restricted document, by title, with the rule that applies to it",
  }),
}).openapi("AccessRuleEntriesResponse");

/** Which rule decided a document, for the buyer's explanation. */
export interface RuleOrigin {
  source: RuleSource;
  /** source project: the project's name. */
  projectName: string | null;
}

/** The rule that decided, in words: null for the built-in default (nothing was set). */
function ruleName(origin: RuleOrigin, title: string, vendor: string): string | null {
  switch (origin.source) {
    case "document":
      return `the rule for "${title}"`;
    case "project":
      return `the rule for project ${origin.projectName}'s documents`;
    case "organization":
      return `${vendor}'s rule for every restricted document`;
    default:
      return null;
  }
}

/**
 * The decision's explanation preceded by the rule that made it ("Allowed by the rule for
 * project X's documents: …"). A refusal by the trust center's own deny list names that list,
 * whichever rule applies.
 */
export function explainByRule(
  verdict: { outcome: Decision["outcome"]; explanation: string },
  options: { origin: RuleOrigin; rule: AccessRule; title: string; vendor: string; domain: string },
): string {
  const { origin, rule, title, vendor, domain } = options;
  if (verdict.outcome === "denied" && !rule.denyDomains.includes(domain)) {
    return `Refused by ${vendor}'s deny list for every document: ${verdict.explanation}`;
  }
  const name = ruleName(origin, title, vendor);
  if (!name) return verdict.explanation;
  const lead = verdict.outcome === "granted"
    ? "Allowed by"
    : verdict.outcome === "denied"
    ? "Refused by"
    : "Under";
  return `${lead} ${name}: ${verdict.explanation}`;
}
