/**
 * Signing in by an emailed one-time link while password sign-in is locked for an address.
 * Throttling per email means anyone who knows an address can lock its owner out; when
 * SMTP is configured, the owner asks for a link from the sign-in page instead. The link
 * completes the authorization request it was asked from (same client, redirect URI and
 * PKCE challenge), once, within 15 minutes; only the SHA-256 of its token is stored, and
 * requests are limited per email and per address. The email is sent directly through the
 * Mailer, not through the queue.
 */
import type { Account } from "../../domain/account.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import type { Logger } from "../../lib/log.ts";
import type { Mailer } from "../../mail/mod.ts";
import { getAccount, getAccountByEmail } from "../../store/accounts.ts";
import {
  countSignInLinkRequest,
  peekSignInLink,
  saveSignInLink,
  takeSignInLink,
} from "../../store/sign_in_links.ts";
import { endLoginAttemptWithSuccess, loginLockedForMs } from "../throttle.ts";
import type { AuthorizationRequest } from "./authorize.ts";
import type { IdpDeps } from "./types.ts";

/** How long a link signs in. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
/** Links asked for per email and per client address in an hour (README: "Login throttling"). */
export const SIGN_IN_LINK_LIMITS = { windowMs: 60 * 60 * 1000, max: { email: 3, ip: 10 } };

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What asking for a link did. */
export type LinkRequestOutcome =
  | { state: "sent" }
  | { state: "mail_off" }
  | { state: "not_locked" }
  | { state: "limited"; retryAfterSeconds: number };

type LinkDeps = IdpDeps & { mailer: Mailer; log: Logger };

/** The URL an emailed token opens. */
export function signInLinkUrl(deps: Pick<IdpDeps, "config">, token: string): string {
  return `${deps.config.baseUrl}/oauth2/sign-in-link/${token}`;
}

/**
 * Asks for a sign-in link for `email`, from a checked authorization request. Only while
 * password sign-in is locked for the email or the address; counted per email and address
 * whether or not an account uses it. A link is made and mailed only for an existing
 * account, and the answer is the same either way, so it reveals no account.
 */
export async function requestSignInLink(
  deps: LinkDeps,
  input: { email: string; ip: string; request: AuthorizationRequest },
): Promise<LinkRequestOutcome> {
  const { kv, clock, mailer } = deps;
  if (!mailer.configured) return { state: "mail_off" };
  const email = input.email.trim().toLowerCase();
  const now = clock.now();
  if (await loginLockedForMs(kv, { email, ip: input.ip }, now) === 0) {
    return { state: "not_locked" };
  }
  const wait = await countSignInLinkRequest(kv, { email, ip: input.ip }, {
    now,
    ...SIGN_IN_LINK_LIMITS,
  });
  if (wait > 0) return { state: "limited", retryAfterSeconds: Math.ceil(wait / 1000) };
  const account = await getAccountByEmail(kv, email);
  if (!account) return { state: "sent" };
  const token = randomToken();
  await saveSignInLink(kv, await sha256Hex(token), {
    accountId: account.id,
    request: { ...input.request },
    expiresAt: now.getTime() + SIGN_IN_LINK_TTL_MS,
  }, SIGN_IN_LINK_TTL_MS);
  try {
    await mailer.send(linkEmail(account, signInLinkUrl(deps, token)));
  } catch (error) {
    // The answer stays the one an unknown address gets; the operator sees why in the log.
    deps.log.warn("auth.sign_in_link_not_sent", { error: (error as Error).message });
  }
  return { state: "sent" };
}

function linkEmail(account: Account, url: string) {
  const minutes = SIGN_IN_LINK_TTL_MS / 60_000;
  return {
    to: account.email,
    subject: "Your one-time sign-in link",
    text: [
      `Hello ${account.name},`,
      "",
      "Sign-in with a password is paused for your address after repeated failed attempts,",
      "and someone (hopefully you) asked for a one-time sign-in link. This link signs you in",
      `once, within ${minutes} minutes; open it in the browser where you asked for it:`,
      "",
      url,
      "",
      "If you did not ask for it, ignore this email: nothing changes, and your password stays",
      "as it is. Failed attempts by someone else are what paused password sign-in.",
    ].join("\n"),
  };
}

/** The email a usable link signs in as, without using it; null when it is not usable. */
export async function inspectSignInLink(
  deps: Pick<IdpDeps, "kv" | "clock">,
  token: string,
): Promise<{ email: string } | null> {
  if (!TOKEN.test(token)) return null;
  const link = await peekSignInLink(deps.kv, await sha256Hex(token));
  if (!link || link.expiresAt <= deps.clock.now().getTime()) return null;
  const account = await getAccount(deps.kv, link.accountId);
  return account ? { email: account.email } : null;
}

/**
 * Uses a link, once: the account and the authorization request it completes, or null when
 * it is unknown, used or expired. Signing in this way clears the email's failed attempts.
 */
export async function useSignInLink(
  deps: Pick<IdpDeps, "kv" | "clock">,
  input: { token: string; ip: string },
): Promise<{ account: Account; request: AuthorizationRequest } | null> {
  if (!TOKEN.test(input.token)) return null;
  const link = await takeSignInLink(deps.kv, await sha256Hex(input.token));
  if (!link || link.expiresAt <= deps.clock.now().getTime()) return null;
  const account = await getAccount(deps.kv, link.accountId);
  if (!account) return null;
  const email = account.email.trim().toLowerCase();
  await endLoginAttemptWithSuccess(deps.kv, { email, ip: input.ip });
  return { account, request: link.request };
}
