/**
 * Signing in by an emailed one-time link while password sign-in is locked for an address.
 * Throttling per email means anyone who knows an address can lock its owner out; when
 * email is configured, the owner asks for a link from the sign-in page instead. The link
 * completes the authorization request it was asked from (same client, redirect URI and
 * PKCE challenge), once, within 15 minutes; only the SHA-256 of its token is stored.
 *
 * Asking reveals no account: the request is answered after the same fixed work for every
 * address (the email's lock read, one commit that counts it and stages a job), and the
 * "sign-in-link" job looks the account up and mails it after the answer. A link is sent only
 * to the address named in the request, only while that address's own password sign-in is
 * locked, at most 3 times an hour per address and 10 per client address.
 */
import type { Account } from "../../domain/account.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import type { Logger } from "../../lib/log.ts";
import type { JobWorker } from "../../live/worker.ts";
import type { Mailer } from "../../mail/mod.ts";
import { getAccount, getAccountByEmail } from "../../store/accounts.ts";
import {
  markSignInLinkSending,
  peekSignInLink,
  saveSignInLink,
  type SignInLinkMessage,
  stageSignInLinkRequest,
  takeSignInLink,
  unmarkSignInLinkSending,
} from "../../store/sign_in_links.ts";
import { endLoginAttemptWithSuccess, loginLockedForMs } from "../throttle.ts";
import type { AuthorizationRequest } from "./authorize.ts";
import type { IdpDeps } from "./types.ts";

/** How long a link signs in; a request whose email could not go out within it is dropped. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60 * 1000;
/** Links asked for per email and per client address in an hour (docs/sign-in-lockout.md). */
export const SIGN_IN_LINK_LIMITS = { windowMs: 60 * 60 * 1000, max: { email: 3, ip: 10 } };
/** The job kind that looks the account up and emails the link. */
export const SIGN_IN_LINK_JOB = "sign-in-link";
/**
 * How long after the answer that job is due: its work (the lookup, and for an account the
 * link and the sending) then never shares this instance's event loop with the answer itself,
 * which would delay answers for existing accounts by the time that work takes.
 */
export const SIGN_IN_LINK_DELAY_MS = 1000;

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What asking for a link did. */
export type LinkRequestOutcome =
  | { state: "accepted" }
  | { state: "mail_off" }
  | { state: "not_locked" }
  | { state: "limited"; retryAfterSeconds: number };

type LinkDeps = Pick<IdpDeps, "kv" | "clock" | "config"> & { mailer: Mailer; log: Logger };

/** The URL an emailed token opens. */
export function signInLinkUrl(deps: Pick<IdpDeps, "config">, token: string): string {
  return `${deps.config.baseUrl}/oauth2/sign-in-link/${token}`;
}

/**
 * Asks for a sign-in link for `email`, from a checked authorization request: only while
 * password sign-in is locked for that email itself (a locked client address alone sends
 * nothing). Counted per email and per client address, and staged as a job, in one commit;
 * nothing here depends on whether an account uses the address, so neither the answer nor
 * its timing tells.
 */
export async function requestSignInLink(
  deps: LinkDeps,
  input: { email: string; ip: string; request: AuthorizationRequest },
): Promise<LinkRequestOutcome> {
  const { kv, clock, mailer } = deps;
  if (!mailer.configured) return { state: "mail_off" };
  const email = input.email.trim().toLowerCase();
  const now = clock.now();
  const locked = await loginLockedForMs(kv, { email, ip: input.ip }, now);
  if (locked.email === 0) return { state: "not_locked" };
  const wait = await stageSignInLinkRequest(kv, {
    email,
    emailHash: await sha256Hex(`sign-in-link:${email}`),
    ip: input.ip,
    request: { ...input.request },
  }, { now, delayMs: SIGN_IN_LINK_DELAY_MS, ...SIGN_IN_LINK_LIMITS });
  if (wait > 0) return { state: "limited", retryAfterSeconds: Math.ceil(wait / 1000) };
  return { state: "accepted" };
}

/**
 * Runs one staged request, after its answer: when an account uses the address, a link is
 * made and emailed to it, at most once (the request is marked as sending first; a run that
 * finds the mark from a run that stopped mid-way does not send again). A failed sending
 * throws, so the job runs again with backoff, until the link's lifetime has passed since it
 * was asked for.
 */
async function sendSignInLink(deps: LinkDeps, message: SignInLinkMessage): Promise<void> {
  const { kv, clock, mailer, log } = deps;
  const now = clock.now().getTime();
  if (now - message.askedAt > SIGN_IN_LINK_TTL_MS) {
    log.warn("auth.sign_in_link_not_sent", { reason: "asked for too long ago" });
    return;
  }
  const account = await getAccountByEmail(kv, message.email);
  if (!account || !mailer.configured) return;
  if (!(await markSignInLinkSending(kv, message.requestId, { ttlMs: 2 * SIGN_IN_LINK_TTL_MS }))) {
    log.warn("auth.sign_in_link_not_sent", { reason: "sending was interrupted; not sent again" });
    return;
  }
  const token = randomToken();
  const tokenHash = await sha256Hex(token);
  await saveSignInLink(kv, tokenHash, {
    accountId: account.id,
    request: message.request,
    expiresAt: now + SIGN_IN_LINK_TTL_MS,
  }, SIGN_IN_LINK_TTL_MS);
  try {
    await mailer.send(linkEmail(account, signInLinkUrl(deps, token)));
  } catch (error) {
    await unmarkSignInLinkSending(kv, message.requestId, tokenHash);
    log.warn("auth.sign_in_link_not_sent", { error: (error as Error).message });
    throw error;
  }
}

/** Whether a stored job message is a staged link request. */
function isLinkMessage(message: { kind: string }): message is SignInLinkMessage {
  const m = message as Partial<SignInLinkMessage>;
  return typeof m.requestId === "string" && typeof m.email === "string" &&
    typeof m.askedAt === "number" && typeof m.request === "object" && m.request !== null;
}

/** Registers the "sign-in-link" job handler, which emails the links asked for. */
export function registerSignInLinks(deps: LinkDeps & { jobs: JobWorker }): void {
  deps.jobs.on(SIGN_IN_LINK_JOB, async (message) => {
    if (isLinkMessage(message)) await sendSignInLink(deps, message);
  });
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
