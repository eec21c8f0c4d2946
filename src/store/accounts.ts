/**
 * Local accounts of the built-in identity provider and its first-run setup
 * link. The setup token is stored as its SHA-256, never in the clear.
 */
import type { Account } from "../domain/account.ts";
import { accountByEmailKey, accountKey, accountsPrefix, setupTokenKey } from "./keys.ts";

/** Whether any local account exists (the first-run setup link is offered until one does). */
export async function hasAnyAccount(kv: Deno.Kv): Promise<boolean> {
  for await (const _ of kv.list({ prefix: accountsPrefix() }, { limit: 1 })) return true;
  return false;
}

/** The account registered with `email` (compared lower-cased), or null. */
export async function getAccountByEmail(kv: Deno.Kv, email: string): Promise<Account | null> {
  const index = await kv.get<string>(accountByEmailKey(email.toLowerCase()));
  if (!index.value) return null;
  return (await kv.get<Account>(accountKey(index.value))).value;
}

/** The account with `id`, or null. */
export async function getAccount(kv: Deno.Kv, id: string): Promise<Account | null> {
  return (await kv.get<Account>(accountKey(id))).value;
}

/**
 * Creates an account, its email claimed in the same atomic. With
 * `consumeSetupToken` the first-run setup token is deleted in that atomic too,
 * and the creation fails if the token changed since it was read, so one setup
 * link creates one account. Returns null when the email is taken or the token
 * changed.
 */
export async function createAccount(
  kv: Deno.Kv,
  account: Account,
  options: { consumeSetupToken?: boolean } = {},
): Promise<Account | null> {
  const emailKey = accountByEmailKey(account.email);
  const op = kv.atomic()
    .check({ key: emailKey, versionstamp: null })
    .set(accountKey(account.id), account)
    .set(emailKey, account.id);
  if (options.consumeSetupToken) {
    const setup = await kv.get<string>(setupTokenKey());
    op.check(setup).delete(setup.key);
  }
  return (await op.commit()).ok ? account : null;
}

/** Replaces the first-run setup token with the one whose SHA-256 is `tokenHash`. */
export async function setSetupToken(kv: Deno.Kv, tokenHash: string): Promise<void> {
  await kv.set(setupTokenKey(), tokenHash);
}

/** The SHA-256 of the current first-run setup token, or null when there is none. */
export async function getSetupTokenHash(kv: Deno.Kv): Promise<string | null> {
  return (await kv.get<string>(setupTokenKey())).value;
}
