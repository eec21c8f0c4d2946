/**
 * Buyer organizations of one vendor organization, their people, grants and tokens, the
 * pending sign-in links that verify an address, the access rules per document, the access
 * inventory (every read by a known party) and its monthly summaries, and the anonymous page
 * counters. Every key starts with the vendor organization's id, so one prefix walk finds
 * (and deletion removes) all of a vendor's buyers. Tokens and sign-in links are kept only
 * as the SHA-256 of their secret.
 *
 * This module keeps the buyer organizations, their people and grants, and re-exports the
 * rest so its importers are unchanged: tokens and sign-in links from buyer_tokens.ts, rules
 * and settings from access_rules.ts, the inventory and page counters from access_inventory.ts.
 */
import type { BuyerGrant, BuyerMember, BuyerOrganization } from "../domain/buyers.ts";
import { conflict } from "../domain/errors.ts";
import { tokenEntries } from "./buyer_tokens.ts";

export {
  type BuyerSignIn,
  getBuyerToken,
  getBuyerTokenOrganization,
  listServiceTokens,
  revokeBuyerToken,
  saveBuyerSignIn,
  saveBuyerToken,
  takeBuyerSignIn,
} from "./buyer_tokens.ts";
export {
  type AccessSettings,
  deleteAccessRule,
  getAccessRule,
  getAccessSettings,
  setAccessRule,
  setAccessSettings,
} from "./access_rules.ts";
export {
  type AccessEvent,
  countPageViews,
  listAccessEvents,
  listPageViews,
  listSummaryRows,
  recordAccessEvent,
  type SummaryCounts,
  type SummaryKey,
} from "./access_inventory.ts";

const buyerOrgKey = (orgId: string, domain: string): Deno.KvKey => ["buyer_orgs", orgId, domain];
const buyerMemberKey = (orgId: string, domain: string, email: string): Deno.KvKey => [
  "buyer_members",
  orgId,
  domain,
  email,
];
const buyerGrantKey = (orgId: string, domain: string, documentId: string): Deno.KvKey => [
  "buyer_grants",
  orgId,
  domain,
  documentId,
];

const LIST_LIMIT = 1000;

async function listValues<T>(kv: Deno.Kv, prefix: Deno.KvKey, limit = LIST_LIMIT): Promise<T[]> {
  const out: T[] = [];
  for await (const entry of kv.list<T>({ prefix }, { limit })) out.push(entry.value);
  return out;
}

// Organizations and people.

export async function getBuyerOrganization(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
): Promise<BuyerOrganization | null> {
  return (await kv.get<BuyerOrganization>(buyerOrgKey(orgId, domain))).value;
}

export function listBuyerOrganizations(
  kv: Deno.Kv,
  orgId: string,
  limit: number,
): Promise<BuyerOrganization[]> {
  return listValues<BuyerOrganization>(kv, ["buyer_orgs", orgId], limit);
}

/**
 * Creates the buyer organization of `domain` with `founder` as its first admin, when none
 * exists; resolves with whether it did.
 */
export async function createBuyerOrganization(
  kv: Deno.Kv,
  orgId: string,
  value: BuyerOrganization,
  founder: BuyerMember,
): Promise<boolean> {
  const key = buyerOrgKey(orgId, value.domain);
  const result = await kv.atomic().check({ key, versionstamp: null }).set(key, value)
    .set(buyerMemberKey(orgId, value.domain, founder.email), founder).commit();
  return result.ok;
}

export async function setBuyerOrganization(
  kv: Deno.Kv,
  orgId: string,
  value: BuyerOrganization,
): Promise<void> {
  await kv.set(buyerOrgKey(orgId, value.domain), value);
}

export async function getBuyerMember(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
  email: string,
): Promise<BuyerMember | null> {
  return (await kv.get<BuyerMember>(buyerMemberKey(orgId, domain, email))).value;
}

export function listBuyerMembers(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
): Promise<BuyerMember[]> {
  return listValues<BuyerMember>(kv, ["buyer_members", orgId, domain]);
}

export async function setBuyerMember(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
  member: BuyerMember,
): Promise<void> {
  await kv.set(buyerMemberKey(orgId, domain, member.email), member);
}

/** Removes a person and ends their sessions. */
export async function removeBuyerMember(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
  email: string,
  now: Date,
): Promise<boolean> {
  const key = buyerMemberKey(orgId, domain, email);
  const entry = await kv.get(key);
  if (entry.value === null) return false;
  const op = kv.atomic().check(entry).delete(key);
  for (const { key: tokenKey, value } of await tokenEntries(kv, orgId)) {
    if (value.domain === domain && value.kind === "session" && value.email === email) {
      op.set(tokenKey, { ...value, revokedAt: now.toISOString() }, {
        expireIn: Math.max(1, Date.parse(value.expiresAt) - now.getTime()),
      });
    }
  }
  if (!(await op.commit()).ok) throw conflict("The organization changed meanwhile; retry");
  return true;
}

// Grants.

export function listBuyerGrants(kv: Deno.Kv, orgId: string, domain: string): Promise<BuyerGrant[]> {
  return listValues<BuyerGrant>(kv, ["buyer_grants", orgId, domain]);
}

export async function setBuyerGrant(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
  grant: BuyerGrant,
): Promise<void> {
  await kv.set(buyerGrantKey(orgId, domain, grant.documentId), grant);
}

/** Deletes every grant of a buyer organization and revokes its tokens. */
export async function revokeBuyerAccess(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
  now: Date,
): Promise<void> {
  for await (const entry of kv.list({ prefix: ["buyer_grants", orgId, domain] })) {
    await kv.delete(entry.key);
  }
  for (const { key, value } of await tokenEntries(kv, orgId)) {
    if (value.domain === domain && value.revokedAt === null) {
      await kv.set(key, { ...value, revokedAt: now.toISOString() }, {
        expireIn: Math.max(1, Date.parse(value.expiresAt) - now.getTime()),
      });
    }
  }
}
