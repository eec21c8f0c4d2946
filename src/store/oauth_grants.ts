/**
 * The built-in identity provider's grants: authorization codes and refresh
 * tokens, each stored under its SHA-256, and the refresh-token families (one
 * per sign-in) whose deletion revokes every token rotated from that sign-in.
 */
import type { AuthorizationCode, RefreshToken } from "../domain/account.ts";
import {
  authorizationCodeKey,
  refreshFamilyKey,
  refreshTokenKey,
  signInTicketKey,
} from "./keys.ts";

/**
 * Stores a new code under `hash`, kept ten times `ttlMs` (past its lifetime it is refused
 * as expired); redemption keeps it for as long as the session it starts can live.
 */
export async function saveAuthorizationCode(
  kv: Deno.Kv,
  code: AuthorizationCode,
  options: { hash: string; ttlMs: number },
): Promise<void> {
  await kv.set(authorizationCodeKey(options.hash), code, { expireIn: options.ttlMs * 10 });
}

/** The code stored under `codeHash` with its version (for redemption), or null. */
export async function getAuthorizationCode(
  kv: Deno.Kv,
  codeHash: string,
): Promise<Deno.KvEntry<AuthorizationCode> | null> {
  const entry = await kv.get<AuthorizationCode>(authorizationCodeKey(codeHash));
  return entry.versionstamp === null ? null : entry;
}

/**
 * Redeems a code once: marks it with its new family and starts that family
 * with its first refresh token, atomically. Returns false when the code
 * changed since `entry` was read (it was redeemed concurrently). The redeemed
 * code is kept as long as the family can live, so presenting it again at any
 * time the session could still be in use is recognized as reuse and ends it.
 */
export async function redeemAuthorizationCode(
  kv: Deno.Kv,
  entry: Deno.KvEntry<AuthorizationCode>,
  options: { familyId: string; refresh: { hash: string; token: RefreshToken }; now: Date },
): Promise<boolean> {
  const { familyId, refresh } = options;
  // Lifetimes come from the caller's clock, the one `expiresAt` was computed with.
  const ttl = Math.max(refresh.token.expiresAt - options.now.getTime(), 1);
  const res = await kv.atomic().check(entry)
    .set(entry.key, { ...entry.value, familyId }, { expireIn: ttl })
    .set(refreshFamilyKey(familyId), { accountId: entry.value.accountId }, { expireIn: ttl })
    .set(refreshTokenKey(refresh.hash), refresh.token, { expireIn: ttl })
    .commit();
  return res.ok;
}

/** Ends a sign-in's session: no token of the family is accepted afterwards. */
export async function revokeRefreshFamily(kv: Deno.Kv, familyId: string): Promise<void> {
  await kv.delete(refreshFamilyKey(familyId));
}

/** A live family's record (the account it signs in), or null once revoked or expired. */
export async function getRefreshFamily(
  kv: Deno.Kv,
  familyId: string,
): Promise<{ accountId: string } | null> {
  return (await kv.get<{ accountId: string }>(refreshFamilyKey(familyId))).value;
}

/** Whether the family's session is still live (neither revoked nor expired). */
export async function isRefreshFamilyLive(kv: Deno.Kv, familyId: string): Promise<boolean> {
  return (await kv.get(refreshFamilyKey(familyId))).versionstamp !== null;
}

/** The refresh token stored under `tokenHash` with its version (for rotation), or null. */
export async function getRefreshToken(
  kv: Deno.Kv,
  tokenHash: string,
): Promise<Deno.KvEntry<RefreshToken> | null> {
  const entry = await kv.get<RefreshToken>(refreshTokenKey(tokenHash));
  return entry.versionstamp === null ? null : entry;
}

/**
 * Rotates a refresh token: the old one is marked used and the next one
 * stored, atomically. Returns false when the old one changed since `entry`
 * was read (it was rotated concurrently).
 */
export async function rotateRefreshToken(
  kv: Deno.Kv,
  entry: Deno.KvEntry<RefreshToken>,
  options: { next: { hash: string; token: RefreshToken }; now: Date },
): Promise<boolean> {
  const { next } = options;
  const ttl = next.token.expiresAt - options.now.getTime();
  const res = await kv.atomic().check(entry)
    .set(entry.key, { ...entry.value, used: true }, { expireIn: Math.max(ttl, 1) })
    .set(refreshTokenKey(next.hash), next.token, { expireIn: Math.max(ttl, 1) })
    .commit();
  return res.ok;
}

/** A one-time sign-in ticket: the account it signs in, until `expiresAt` (epoch ms). */
export interface SignInTicket {
  accountId: string;
  expiresAt: number;
}

/** Stores a new ticket under `hash`; KV drops it after `ttlMs`. */
export async function saveSignInTicket(
  kv: Deno.Kv,
  ticket: SignInTicket,
  options: { hash: string; ttlMs: number },
): Promise<void> {
  await kv.set(signInTicketKey(options.hash), ticket, { expireIn: options.ttlMs });
}

/** Takes the ticket stored under `hash` once: deleted in the same atomic; null when absent. */
export async function takeSignInTicket(kv: Deno.Kv, hash: string): Promise<SignInTicket | null> {
  const entry = await kv.get<SignInTicket>(signInTicketKey(hash));
  if (entry.versionstamp === null) return null;
  const res = await kv.atomic().check(entry).delete(entry.key).commit();
  return res.ok ? entry.value : null;
}
