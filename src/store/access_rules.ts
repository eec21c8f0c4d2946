/**
 * The access rules per document and the access settings (deny list, how long summaries are
 * kept, the trust center's rule for every restricted document) of one vendor organization.
 * Re-exported by src/store/buyers.ts.
 */
import type { AccessRule } from "../domain/buyers.ts";

const accessRuleKey = (orgId: string, documentId: string): Deno.KvKey => [
  "access_rules",
  orgId,
  documentId,
];
const accessSettingsKey = (orgId: string): Deno.KvKey => ["access_settings", orgId];

export async function getAccessRule(
  kv: Deno.Kv,
  orgId: string,
  documentId: string,
): Promise<AccessRule | null> {
  return (await kv.get<AccessRule>(accessRuleKey(orgId, documentId))).value;
}

export async function setAccessRule(kv: Deno.Kv, orgId: string, rule: AccessRule): Promise<void> {
  await kv.set(accessRuleKey(orgId, rule.documentId), rule);
}

export async function deleteAccessRule(
  kv: Deno.Kv,
  orgId: string,
  documentId: string,
): Promise<void> {
  await kv.delete(accessRuleKey(orgId, documentId));
}

export interface AccessSettings {
  denyDomains: string[];
  summaryMonths: number;
  /** The rule of every restricted document without its own (null: by domain, else by hand). */
  defaultRule?: Omit<AccessRule, "documentId" | "updatedAt"> | null;
}

export async function getAccessSettings(
  kv: Deno.Kv,
  orgId: string,
  fallback: AccessSettings,
): Promise<AccessSettings> {
  return (await kv.get<AccessSettings>(accessSettingsKey(orgId))).value ?? fallback;
}

export async function setAccessSettings(
  kv: Deno.Kv,
  orgId: string,
  value: AccessSettings,
): Promise<void> {
  await kv.set(accessSettingsKey(orgId), value);
}
