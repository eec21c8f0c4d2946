/**
 * Signed in after signing up: the sign-up form leaves a one-time ticket in an HttpOnly cookie
 * scoped to the authorization endpoint, and the dashboard's next authorization request in the
 * same browser is answered with a code for that account, without asking for the password it
 * was just given. Only the ticket's SHA-256 is stored; it is taken at its first use and lives
 * five minutes.
 */
import type { Account } from "../../domain/account.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { getAccount } from "../../store/accounts.ts";
import { saveSignInTicket, takeSignInTicket } from "../../store/oauth_grants.ts";
import type { IdpDeps } from "./types.ts";

export const SIGN_IN_TICKET_TTL_MS = 5 * 60 * 1000;

/** A new ticket for `account`, to be set as a cookie. */
export async function issueSignInTicket(
  deps: Pick<IdpDeps, "kv" | "clock">,
  account: Account,
): Promise<string> {
  const ticket = randomToken();
  await saveSignInTicket(deps.kv, {
    accountId: account.id,
    expiresAt: deps.clock.now().getTime() + SIGN_IN_TICKET_TTL_MS,
  }, { hash: await sha256Hex(ticket), ttlMs: SIGN_IN_TICKET_TTL_MS });
  return ticket;
}

/** The account of an unexpired ticket, which is used up; null for any other value. */
export async function redeemSignInTicket(
  deps: Pick<IdpDeps, "kv" | "clock">,
  ticket: string,
): Promise<Account | null> {
  if (!ticket) return null;
  const taken = await takeSignInTicket(deps.kv, await sha256Hex(ticket));
  if (!taken || taken.expiresAt <= deps.clock.now().getTime()) return null;
  return await getAccount(deps.kv, taken.accountId);
}
