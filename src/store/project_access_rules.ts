/**
 * The access rule of one project's restricted documents (docs/ads.md, rule groups), keyed
 * under the vendor organization: removed with it, and with the project (src/store/tenant_keys.ts).
 */
import type { ProjectAccessRule } from "../domain/access_rules.ts";

/** Most project rules one answer lists. */
const MAX_PROJECT_RULES = 1000;

const projectRuleKey = (orgId: string, projectId: string): Deno.KvKey => [
  "access_project_rules",
  orgId,
  projectId,
];

export async function getProjectAccessRule(
  kv: Deno.Kv,
  orgId: string,
  projectId: string,
): Promise<ProjectAccessRule | null> {
  return (await kv.get<ProjectAccessRule>(projectRuleKey(orgId, projectId))).value;
}

export async function setProjectAccessRule(
  kv: Deno.Kv,
  orgId: string,
  rule: ProjectAccessRule,
): Promise<void> {
  await kv.set(projectRuleKey(orgId, rule.projectId), rule);
}

export async function deleteProjectAccessRule(
  kv: Deno.Kv,
  orgId: string,
  projectId: string,
): Promise<void> {
  await kv.delete(projectRuleKey(orgId, projectId));
}

export async function listProjectAccessRules(
  kv: Deno.Kv,
  orgId: string,
): Promise<ProjectAccessRule[]> {
  const out: ProjectAccessRule[] = [];
  const entries = kv.list<ProjectAccessRule>({ prefix: ["access_project_rules", orgId] }, {
    limit: MAX_PROJECT_RULES,
  });
  for await (const entry of entries) out.push(entry.value);
  return out;
}
