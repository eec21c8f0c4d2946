/**
 * Which rule decides a restricted document (docs/ads.md, rule groups): its own, else its
 * project's, else the trust center's rule for every restricted document (access settings'
 * `defaultRule`), else the built-in default. Read per decision, so a change applies to the
 * next request.
 */
import type { RuleOrigin } from "../domain/access_rules.ts";
import { type AccessRule, defaultRule } from "../domain/buyers.ts";
import { getAccessRule, getAccessSettings } from "../store/buyers.ts";
import { getProjectAccessRule } from "../store/project_access_rules.ts";
import { getProject } from "../store/projects.ts";
import { DEFAULT_ACCESS_SETTINGS } from "./buyers.ts";

export interface RuleChoice extends RuleOrigin {
  rule: AccessRule;
  /** The project whose rule applies (source project), else null. */
  projectId: string | null;
}

/** The rule of `document` and where it comes from. */
export async function chooseRule(
  kv: Deno.Kv,
  orgId: string,
  document: { id: string; projectId: string | null },
): Promise<RuleChoice> {
  const own = await getAccessRule(kv, orgId, document.id);
  if (own) return { rule: own, source: "document", projectId: null, projectName: null };
  if (document.projectId) {
    const group = await getProjectAccessRule(kv, orgId, document.projectId);
    const project = group && await getProject(kv, document.projectId);
    if (group && project && project.organizationId === orgId) {
      const { projectId: _, ...rule } = group;
      return {
        rule: { ...rule, documentId: document.id },
        source: "project",
        projectId: project.id,
        projectName: project.name,
      };
    }
  }
  const { defaultRule: all } = await getAccessSettings(kv, orgId, DEFAULT_ACCESS_SETTINGS);
  return all
    ? {
      rule: { ...all, documentId: document.id, updatedAt: null },
      source: "organization",
      projectId: null,
      projectName: null,
    }
    : { rule: defaultRule(document.id), source: "default", projectId: null, projectName: null };
}
