/**
 * Buyer tokens and the pending sign-in links that verify an address, of one vendor
 * organization, each kept only as the SHA-256 of its secret (KV drops them when they expire),
 * with the index from a token's hash to its vendor organization. Re-exported by
 * src/store/buyers.ts.
 */
import type { BuyerToken } from "../domain/buyers.ts";
import { oncePerDatabase } from "./once_per_database.ts";

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

/**
 * Every buyer token of a vendor organization with its key: listing, revoking one, and what
 * src/store/buyers.ts revokes with a person or a buyer organization.
 */
export async function tokenEntries(kv: Deno.Kv, orgId: string) {
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

/** Where the index's one backfill is recorded (tokens made before the index existed). */
const buyerTokenIndexMetaKey = (): Deno.KvKey => ["buyer_tokens_meta", "index"];

/**
 * Writes the index entry of every unexpired buyer token that has none (tokens made before the
 * index existed, which MCP could not find), then records that the index is whole. Each entry
 * is written only while its token is unchanged and the entry still missing, so a token revoked
 * or deleted meanwhile is not brought back. Returns how many entries it wrote.
 */
export async function backfillBuyerTokenIndex(kv: Deno.Kv, now: Date): Promise<number> {
  let added = 0;
  let scanned = 0;
  for await (
    const token of kv.list<BuyerToken>({ prefix: ["buyer_tokens"] }, { batchSize: 500 })
  ) {
    scanned++;
    const [, orgId, hash] = token.key as [string, string, string];
    const expireIn = Date.parse(token.value.expiresAt) - now.getTime();
    if (!(expireIn > 0)) continue;
    const index = await kv.get<string>(buyerTokenOrgKey(hash));
    if (index.value !== null) continue;
    const written = await kv.atomic().check(token).check(index)
      .set(buyerTokenOrgKey(hash), orgId, { expireIn })
      .commit();
    if (written.ok) added++;
  }
  await kv.set(buyerTokenIndexMetaKey(), { at: now.toISOString(), scanned, added });
  return added;
}

/**
 * Backfills the index once per database, the first time a token is looked up by its hash in
 * a process: an instance upgraded from before the index finds the tokens made then; later
 * calls cost nothing.
 */
export const ensureBuyerTokenIndex: (kv: Deno.Kv, now: Date) => Promise<void> = oncePerDatabase(
  buyerTokenIndexMetaKey(),
  backfillBuyerTokenIndex,
);

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
