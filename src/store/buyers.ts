/**
 * Buyer organizations of one vendor organization, their people, grants and tokens, the
 * pending sign-in links that verify an address, the access rules per document, the access
 * inventory (every read by a known party) and its monthly summaries, and the anonymous page
 * counters. Every key starts with the vendor organization's id, so one prefix walk finds
 * (and deletion removes) all of a vendor's buyers. Tokens and sign-in links are kept only
 * as the SHA-256 of their secret.
 */
import type {
  AccessRule,
  BuyerGrant,
  BuyerMember,
  BuyerOrganization,
  BuyerToken,
} from "../domain/buyers.ts";
import { conflict } from "../domain/errors.ts";

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
const buyerTokenKey = (orgId: string, tokenHash: string): Deno.KvKey => [
  "buyer_tokens",
  orgId,
  tokenHash,
];
/** Which vendor organization a token hash belongs to, for callers that name none (MCP). */
const buyerTokenOrgKey = (tokenHash: string): Deno.KvKey => ["buyer_tokens_by_hash", tokenHash];
const buyerSignInKey = (orgId: string, tokenHash: string): Deno.KvKey => [
  "buyer_sign_ins",
  orgId,
  tokenHash,
];
const accessRuleKey = (orgId: string, documentId: string): Deno.KvKey => [
  "access_rules",
  orgId,
  documentId,
];
const accessSettingsKey = (orgId: string): Deno.KvKey => ["access_settings", orgId];
const accessEventKey = (orgId: string, id: string): Deno.KvKey => ["access_events", orgId, id];
const accessSummaryKey = (orgId: string, row: SummaryKey): Deno.KvKey => [
  "access_summaries",
  orgId,
  row.month,
  row.domain,
  row.person,
  row.documentId,
];
const pageViewKey = (orgId: string, day: string, path: string): Deno.KvKey => [
  "page_views",
  orgId,
  day,
  path,
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

// Tokens and sign-in links.

async function tokenEntries(kv: Deno.Kv, orgId: string) {
  const out: { key: Deno.KvKey; value: BuyerToken }[] = [];
  for await (
    const entry of kv.list<BuyerToken>({ prefix: ["buyer_tokens", orgId] }, { limit: 5000 })
  ) {
    out.push({ key: entry.key, value: entry.value });
  }
  return out;
}

/**
 * Stores a token under its hash, with the index from the hash to its vendor organization;
 * KV drops both when it expires.
 */
export async function saveBuyerToken(
  kv: Deno.Kv,
  orgId: string,
  tokenHash: string,
  token: BuyerToken,
  now: Date,
): Promise<void> {
  const expireIn = Math.max(1, Date.parse(token.expiresAt) - now.getTime());
  await kv.atomic()
    .set(buyerTokenKey(orgId, tokenHash), token, { expireIn })
    .set(buyerTokenOrgKey(tokenHash), orgId, { expireIn })
    .commit();
}

/** The id of the vendor organization whose buyer token has this hash, or null. */
export async function getBuyerTokenOrganization(
  kv: Deno.Kv,
  tokenHash: string,
): Promise<string | null> {
  return (await kv.get<string>(buyerTokenOrgKey(tokenHash))).value;
}

export async function getBuyerToken(
  kv: Deno.Kv,
  orgId: string,
  tokenHash: string,
): Promise<BuyerToken | null> {
  return (await kv.get<BuyerToken>(buyerTokenKey(orgId, tokenHash))).value;
}

/** The service tokens of one buyer organization, newest first. */
export async function listServiceTokens(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
): Promise<BuyerToken[]> {
  return (await tokenEntries(kv, orgId)).map((e) => e.value)
    .filter((t) => t.domain === domain && t.kind === "service")
    .sort((a, b) => b.id.localeCompare(a.id));
}

/** Revokes one token by id; false when the organization has no such token. */
export async function revokeBuyerToken(
  kv: Deno.Kv,
  orgId: string,
  domain: string,
  id: string,
  now: Date,
): Promise<boolean> {
  const found = (await tokenEntries(kv, orgId)).find((e) =>
    e.value.domain === domain && e.value.id === id
  );
  if (!found) return false;
  if (found.value.revokedAt === null) {
    await kv.set(found.key, { ...found.value, revokedAt: now.toISOString() }, {
      expireIn: Math.max(1, Date.parse(found.value.expiresAt) - now.getTime()),
    });
  }
  return true;
}

export interface BuyerSignIn {
  email: string;
  createdAt: string;
}

export async function saveBuyerSignIn(
  kv: Deno.Kv,
  orgId: string,
  tokenHash: string,
  value: BuyerSignIn,
  ttlMs: number,
): Promise<void> {
  await kv.set(buyerSignInKey(orgId, tokenHash), value, { expireIn: ttlMs });
}

/** Uses a sign-in link once: of two concurrent uses only one gets it. */
export async function takeBuyerSignIn(
  kv: Deno.Kv,
  orgId: string,
  tokenHash: string,
): Promise<BuyerSignIn | null> {
  const entry = await kv.get<BuyerSignIn>(buyerSignInKey(orgId, tokenHash));
  if (entry.value === null) return null;
  return (await kv.atomic().check(entry).delete(entry.key).commit()).ok ? entry.value : null;
}

// Rules and settings.

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

// The inventory.

export interface AccessEvent {
  id: string;
  at: string;
  kind: "view" | "download";
  /** The buyer organization's domain, or "" for a person outside one (an access link). */
  domain: string;
  /** The person's email, or the service token's name as "token:<name>". */
  person: string;
  documentId: string;
  title: string;
  via: "session" | "service" | "link";
}

export interface SummaryKey {
  month: string;
  domain: string;
  person: string;
  documentId: string;
}

export interface SummaryCounts {
  title: string;
  views: number;
  downloads: number;
  lastAt: string;
}

/**
 * Records one read and counts it in its month's summary row, both kept `keepMs` (the
 * organization's retention of summaries).
 */
export async function recordAccessEvent(
  kv: Deno.Kv,
  orgId: string,
  event: AccessEvent,
  keepMs: number,
): Promise<void> {
  const row = accessSummaryKey(orgId, {
    month: event.at.slice(0, 7),
    domain: event.domain,
    person: event.person,
    documentId: event.documentId,
  });
  for (let attempt = 0; attempt < 10; attempt++) {
    const current = await kv.get<SummaryCounts>(row);
    const counts = current.value ??
      { title: event.title, views: 0, downloads: 0, lastAt: event.at };
    const next: SummaryCounts = {
      title: event.title,
      views: counts.views + (event.kind === "view" ? 1 : 0),
      downloads: counts.downloads + (event.kind === "download" ? 1 : 0),
      lastAt: event.at,
    };
    const done = await kv.atomic().check(current)
      .set(row, next, { expireIn: keepMs })
      .set(accessEventKey(orgId, event.id), event, { expireIn: keepMs })
      .commit();
    if (done.ok) return;
  }
  throw conflict("Too many reads at once; please retry");
}

/** Summary rows from `fromMonth` (YYYY-MM) on, with their keys. */
export async function listSummaryRows(
  kv: Deno.Kv,
  orgId: string,
  fromMonth: string,
  limit: number,
): Promise<(SummaryKey & SummaryCounts)[]> {
  const out: (SummaryKey & SummaryCounts)[] = [];
  for await (
    const entry of kv.list<SummaryCounts>({
      start: ["access_summaries", orgId, fromMonth],
      end: ["access_summaries", orgId, "\uffff"],
    }, { limit })
  ) {
    const [, , month, domain, person, documentId] = entry.key as string[];
    out.push({ month, domain, person, documentId, ...entry.value });
  }
  return out;
}

/** The newest access events, newest first. */
export async function listAccessEvents(
  kv: Deno.Kv,
  orgId: string,
  limit: number,
): Promise<AccessEvent[]> {
  const out: AccessEvent[] = [];
  for await (
    const entry of kv.list<AccessEvent>({ prefix: ["access_events", orgId] }, {
      limit,
      reverse: true,
    })
  ) out.push(entry.value);
  return out;
}

/**
 * Adds anonymous page views to their counters (one per organization, day as YYYY-MM-DD and
 * path): numbers, nothing else.
 */
export async function countPageViews(
  kv: Deno.Kv,
  counts: readonly { orgId: string; day: string; path: string; n: number }[],
): Promise<void> {
  for (let i = 0; i < counts.length; i += 100) {
    const op = kv.atomic();
    for (const { orgId, day, path, n } of counts.slice(i, i + 100)) {
      op.sum(pageViewKey(orgId, day, path), BigInt(n));
    }
    await op.commit();
  }
}

/** Page counters from `fromDay` on: day, path, count. */
export async function listPageViews(
  kv: Deno.Kv,
  orgId: string,
  fromDay: string,
  limit: number,
): Promise<{ day: string; path: string; views: number }[]> {
  const out: { day: string; path: string; views: number }[] = [];
  for await (
    const entry of kv.list<Deno.KvU64>({
      start: ["page_views", orgId, fromDay],
      end: ["page_views", orgId, "\uffff"],
    }, { limit })
  ) {
    const [, , day, path] = entry.key as string[];
    out.push({ day, path, views: Number(entry.value.value) });
  }
  return out;
}
