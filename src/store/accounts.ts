/**
 * Local accounts of the built-in identity provider, and its short-lived
 * grants (setup link, authorization codes, refresh tokens). Every secret is
 * stored as its SHA-256, never in the clear.
 */
import {
  accountByEmailKey,
  accountKey,
  accountsPrefix,
  authorizationCodeKey,
  refreshFamilyKey,
  refreshTokenKey,
  setupTokenKey,
} from "./keys.ts";

export interface Account {
  id: string;
  email: string;
  name: string;
  passwordHash: string;
  createdAt: string;
}

export interface AuthorizationCode {
  accountId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  scope: string;
  expiresAt: number;
  /** Set when redeemed; a second redemption revokes the tokens of this family. */
  familyId: string | null;
}

export interface RefreshToken {
  accountId: string;
  clientId: string;
  scope: string;
  familyId: string;
  expiresAt: number;
  used: boolean;
}

export async function hasAnyAccount(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: accountsPrefix() }, { limit: 1 })) return true;
  return false;
}

export async function getAccountByEmail(kv: Deno.Kv, email: string): Promise<Account | null> {
  const index = await kv.get<string>(accountByEmailKey(email.toLowerCase()));
  if (!index.value) return null;
  return (await kv.get<Account>(accountKey(index.value))).value;
}

export async function getAccount(kv: Deno.Kv, id: string): Promise<Account | null> {
  return (await kv.get<Account>(accountKey(id))).value;
}

/**
 * Creates an account; `extraChecks` lets the caller consume a setup token or
 * invitation in the same atomic. Returns null when the email is taken or a
 * check failed.
 */
export async function createAccount(
  kv: Deno.Kv,
  account: Account,
  extra?: (op: Deno.AtomicOperation) => Deno.AtomicOperation,
): Promise<Account | null> {
  const emailKey = accountByEmailKey(account.email);
  let op = kv.atomic()
    .check({ key: emailKey, versionstamp: null })
    .set(accountKey(account.id), account)
    .set(emailKey, account.id);
  if (extra) op = extra(op);
  return (await op.commit()).ok ? account : null;
}

/** Replaces the first-run setup token (its hash); returns false if an account already exists. */
export async function setSetupToken(kv: Deno.Kv, tokenHash: string): Promise<void> {
  await kv.set(setupTokenKey(), tokenHash);
}

export async function getSetupToken(kv: Deno.Kv): Promise<Deno.KvEntryMaybe<string>> {
  return await kv.get<string>(setupTokenKey());
}

export async function saveAuthorizationCode(
  kv: Deno.Kv,
  codeHash: string,
  code: AuthorizationCode,
  ttlMs: number,
): Promise<void> {
  await kv.set(authorizationCodeKey(codeHash), code, { expireIn: ttlMs * 10 });
}

export async function getAuthorizationCode(
  kv: Deno.Kv,
  codeHash: string,
): Promise<Deno.KvEntryMaybe<AuthorizationCode>> {
  return await kv.get<AuthorizationCode>(authorizationCodeKey(codeHash));
}

/** Redeems a code once: marks it used and starts its refresh-token family atomically. */
export async function redeemAuthorizationCode(
  kv: Deno.Kv,
  entry: Deno.KvEntry<AuthorizationCode>,
  familyId: string,
  refresh: { hash: string; token: RefreshToken },
): Promise<boolean> {
  const res = await kv.atomic().check(entry)
    .set(entry.key, { ...entry.value, familyId }, { expireIn: 10 * 60 * 1000 })
    .set(refreshFamilyKey(familyId), { accountId: entry.value.accountId }, {
      expireIn: refresh.token.expiresAt - Date.now(),
    })
    .set(refreshTokenKey(refresh.hash), refresh.token, {
      expireIn: refresh.token.expiresAt - Date.now(),
    })
    .commit();
  return res.ok;
}

export async function revokeRefreshFamily(kv: Deno.Kv, familyId: string): Promise<void> {
  await kv.delete(refreshFamilyKey(familyId));
}

export async function isRefreshFamilyLive(kv: Deno.Kv, familyId: string): Promise<boolean> {
  return (await kv.get(refreshFamilyKey(familyId))).versionstamp !== null;
}

export async function getRefreshToken(
  kv: Deno.Kv,
  tokenHash: string,
): Promise<Deno.KvEntryMaybe<RefreshToken>> {
  return await kv.get<RefreshToken>(refreshTokenKey(tokenHash));
}

/** Rotates a refresh token: the old one is marked used and the new one stored, atomically. */
export async function rotateRefreshToken(
  kv: Deno.Kv,
  entry: Deno.KvEntry<RefreshToken>,
  next: { hash: string; token: RefreshToken },
): Promise<boolean> {
  const ttl = next.token.expiresAt - Date.now();
  const res = await kv.atomic().check(entry)
    .set(entry.key, { ...entry.value, used: true }, { expireIn: Math.max(ttl, 1) })
    .set(refreshTokenKey(next.hash), next.token, { expireIn: Math.max(ttl, 1) })
    .commit();
  return res.ok;
}
