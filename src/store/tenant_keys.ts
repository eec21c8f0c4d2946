/**
 * Which KV keys hold a tenant's data: every collection (a key's first part) the service writes,
 * with whose it is, and generators that enumerate every key of one project, one organization
 * (its projects included) or one user. Deletion removes what they list; the organization export
 * reads it. A collection added to the store must be added to `KEY_COLLECTIONS` too, in the
 * module of its area under src/store/tenant_keys/ (this module joins the areas):
 * `tests/store/tenant_keys_test.ts` fails on any key builder in `src/` whose collection is not
 * registered, and on any key a tenant's world writes that names the tenant and is not
 * enumerated. The enumerations are src/store/tenant_keys/project_keys.ts,
 * organization_keys.ts and user_keys.ts, on the walks of walk.ts.
 *
 * Most keys are found by prefix (`["controls", projectId]`); some from the records that point
 * at them (a collector's secret-hash index, a domain's name index, a webhook's deliveries); a
 * few global collections without a tenant index are scanned and filtered (`scan`): they
 * expire by themselves (invitations, notices, emails) or stay small (leases, dead jobs).
 */
import { ORGANIZATION_COLLECTIONS } from "./tenant_keys/organizations.ts";
import { PROJECT_COLLECTIONS } from "./tenant_keys/projects.ts";
import { PUBLICATION_COLLECTIONS } from "./tenant_keys/publications.ts";
import { WEBHOOK_COLLECTIONS } from "./tenant_keys/webhooks.ts";
import { ANSWER_COLLECTIONS } from "./tenant_keys/answers.ts";
import { TRUST_CENTER_COLLECTIONS } from "./tenant_keys/trust_center.ts";
import { BUYER_COLLECTIONS } from "./tenant_keys/buyers.ts";
import { SUBSCRIPTION_COLLECTIONS } from "./tenant_keys/subscriptions.ts";
import { LIVE_COLLECTIONS } from "./tenant_keys/live.ts";
import { PEOPLE_COLLECTIONS } from "./tenant_keys/people.ts";
import { SERVICE_COLLECTIONS } from "./tenant_keys/service.ts";
import type { CollectionRule } from "./tenant_keys/rules.ts";

export type { CollectionRule, KeyOwner } from "./tenant_keys/rules.ts";
export { projectKeys } from "./tenant_keys/project_keys.ts";
export { organizationKeys } from "./tenant_keys/organization_keys.ts";
export { userKeys } from "./tenant_keys/user_keys.ts";

/** The areas' registers as one, in order; a name registered in two areas is an error. */
function joinAreas(
  areas: readonly Readonly<Record<string, CollectionRule>>[],
): Readonly<Record<string, CollectionRule>> {
  const all: Record<string, CollectionRule> = {};
  for (const area of areas) {
    for (const [name, rule] of Object.entries(area)) {
      if (Object.hasOwn(all, name)) throw new Error(`${name} is registered twice`);
      all[name] = rule;
    }
  }
  return all;
}

/** Every collection of the KV, by its name (a key's first part). */
export const KEY_COLLECTIONS: Readonly<Record<string, CollectionRule>> = joinAreas([
  ORGANIZATION_COLLECTIONS,
  PROJECT_COLLECTIONS,
  PUBLICATION_COLLECTIONS,
  WEBHOOK_COLLECTIONS,
  ANSWER_COLLECTIONS,
  TRUST_CENTER_COLLECTIONS,
  BUYER_COLLECTIONS,
  SUBSCRIPTION_COLLECTIONS,
  LIVE_COLLECTIONS,
  PEOPLE_COLLECTIONS,
  SERVICE_COLLECTIONS,
]);

/** Collections whose entries outlive their tenant, reduced (the log's entries: hash only). */
export const RETAINED_COLLECTIONS: ReadonlySet<string> = new Set(["log_entries"]);

/** Whether `key` is in a collection kept after its tenant goes (reduced to hashes). */
export function isRetainedKey(key: Deno.KvKey): boolean {
  return RETAINED_COLLECTIONS.has(String(key[0]));
}
