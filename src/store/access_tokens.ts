/**
 * Personal access tokens (src/domain/access_tokens.ts): the record of each under its
 * organization, and the index from a token's SHA-256 to it. Both expire with the token; the
 * token itself is never stored.
 */
import type { AccessToken } from "../domain/access_tokens.ts";

export const accessTokenKey = (organizationId: string, id: string) =>
  ["access_tokens", organizationId, id] as const;
export const accessTokenHashKey = (tokenHash: string) =>
  ["access_tokens_by_hash", tokenHash] as const;

/** The stored record: the token's fields and its hash (to drop the index with it). */
export interface StoredAccessToken extends AccessToken {
  tokenHash: string;
}

/** How long last use goes unrecorded after a recorded one (one write a minute at most). */
export const LAST_USED_RESOLUTION_MS = 60_000;

function expireIn(token: AccessToken, now: Date): number {
  return Math.max(Date.parse(token.expiresAt) - now.getTime(), 1);
}

function publicFields(stored: StoredAccessToken): AccessToken {
  const { tokenHash: _hash, ...token } = stored;
  return token;
}

/**
 * Stores a new token under its organization and its hash. Returns false when the organization
 * already holds `limit` live tokens (checked against the list read here: two creations at once
 * may both pass, which a limit of tokens per organization tolerates).
 */
export async function createAccessToken(
  kv: Deno.Kv,
  token: AccessToken,
  options: { tokenHash: string; now: Date; limit: number },
): Promise<boolean> {
  const live = await listAccessTokens(kv, token.organizationId, options.now);
  if (live.length >= options.limit) return false;
  const ttl = expireIn(token, options.now);
  const stored: StoredAccessToken = { ...token, tokenHash: options.tokenHash };
  const hashKey = accessTokenHashKey(options.tokenHash);
  const res = await kv.atomic().check({ key: hashKey, versionstamp: null })
    .set(accessTokenKey(token.organizationId, token.id), stored, { expireIn: ttl })
    .set(hashKey, { organizationId: token.organizationId, id: token.id }, { expireIn: ttl })
    .commit();
  if (!res.ok) throw new Error("Access token collision");
  return true;
}

/** The organization's live tokens, oldest first (expired ones are left out). */
export async function listAccessTokens(
  kv: Deno.Kv,
  organizationId: string,
  now: Date,
): Promise<AccessToken[]> {
  const tokens: AccessToken[] = [];
  const prefix = ["access_tokens", organizationId];
  // Bounded by the per-organization limit (expired records leave with their expiry).
  for await (const entry of kv.list<StoredAccessToken>({ prefix }, { limit: 1000 })) {
    if (Date.parse(entry.value.expiresAt) > now.getTime()) tokens.push(publicFields(entry.value));
  }
  return tokens.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** One token of the organization, or null. */
export async function getAccessToken(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<AccessToken | null> {
  const value = (await kv.get<StoredAccessToken>(accessTokenKey(organizationId, id))).value;
  return value ? publicFields(value) : null;
}

/**
 * The live token whose SHA-256 is `tokenHash`, or null (unknown, revoked or expired). Records
 * its use when the last recorded one is older than LAST_USED_RESOLUTION_MS.
 */
export async function useAccessToken(
  kv: Deno.Kv,
  tokenHash: string,
  now: Date,
): Promise<AccessToken | null> {
  const ref = (await kv.get<{ organizationId: string; id: string }>(accessTokenHashKey(tokenHash)))
    .value;
  if (!ref) return null;
  const entry = await kv.get<StoredAccessToken>(accessTokenKey(ref.organizationId, ref.id));
  const stored = entry.value;
  if (!stored || stored.tokenHash !== tokenHash) return null;
  if (Date.parse(stored.expiresAt) <= now.getTime()) return null;
  const last = stored.lastUsedAt ? Date.parse(stored.lastUsedAt) : -Infinity;
  if (now.getTime() - last >= LAST_USED_RESOLUTION_MS) {
    const updated = { ...stored, lastUsedAt: now.toISOString() };
    // A revocation in between wins: the check fails and nothing is written back.
    await kv.atomic().check(entry).set(entry.key, updated, { expireIn: expireIn(stored, now) })
      .commit();
    return publicFields(updated);
  }
  return publicFields(stored);
}

/** Revokes a token: its record and its hash index go together. False when there is none. */
export async function revokeAccessToken(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<boolean> {
  const entry = await kv.get<StoredAccessToken>(accessTokenKey(organizationId, id));
  if (!entry.value) return false;
  const res = await kv.atomic().check(entry)
    .delete(entry.key)
    .delete(accessTokenHashKey(entry.value.tokenHash))
    .commit();
  return res.ok || revokeAccessToken(kv, organizationId, id);
}
