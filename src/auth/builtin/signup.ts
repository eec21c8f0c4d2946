/**
 * Account creation for the built-in identity provider, governed by SIGNUP:
 * `first-run` (a one-time setup link while no account exists), `open`, or
 * `invite` (an organization invitation's token is required).
 */
import { z } from "zod";
import type { Config } from "../../config.ts";
import type { Account } from "../../domain/account.ts";
import { hasControlCharacter } from "../../domain/common.ts";
import type { Clock } from "../../lib/clock.ts";
import { sha256Hex } from "../../lib/hash.ts";
import { createAccount, getSetupTokenHash, hasAnyAccount } from "../../store/accounts.ts";
import { getInvitation } from "../../store/invitations.ts";
import { hashPassword, MIN_PASSWORD_LENGTH } from "../password.ts";

/** What lets a person sign up: a first-run setup token or an invitation token. */
export interface SignupGrant {
  setup?: string;
  invitation?: string;
}

/** Whether sign-up is allowed, and for which email when the invitation fixes it. */
export type SignupPermission = { ok: true; email?: string } | { ok: false; reason: string };

/** A sign-up the person can correct: shown on the form again with this status. */
export class SignupFailure extends Error {
  constructor(message: string, readonly status: 400 | 409 = 400) {
    super(message);
  }
}

type SignupDeps = { kv: Deno.Kv; clock: Clock; config: Config };

/** Whether a sign-up with this grant is allowed now, and for which email if fixed. */
export async function checkSignupPermission(
  deps: SignupDeps,
  grant: SignupGrant,
): Promise<SignupPermission> {
  const { kv, config, clock } = deps;
  if (grant.invitation) {
    const invitation = (await getInvitation(kv, await sha256Hex(grant.invitation)))?.value;
    if (
      !invitation || invitation.acceptedAt ||
      Date.parse(invitation.expiresAt) <= clock.now().getTime()
    ) {
      return {
        ok: false,
        reason: "This invitation does not exist, has expired or was already used",
      };
    }
    return { ok: true, email: invitation.email };
  }
  if (config.signup === "open") return { ok: true };
  if (config.signup === "first-run" && grant.setup) {
    const stored = await getSetupTokenHash(kv);
    const hash = await sha256Hex(grant.setup);
    if (stored && stored === hash && !(await hasAnyAccount(kv))) return { ok: true };
    return { ok: false, reason: "This setup link is no longer valid; an account already exists" };
  }
  return { ok: false, reason: "Sign-up needs an invitation from an organization owner" };
}

/**
 * Creates the account of a permitted sign-up, from an email already trimmed
 * and lower-cased and a trimmed name. A first-run setup link (`setup`) is
 * used up in the same atomic. Throws a SignupFailure for an invalid email,
 * name or password, or a taken email.
 */
export async function registerAccount(
  deps: Pick<SignupDeps, "kv" | "clock">,
  input: { email: string; name: string; password: string; setup?: string },
): Promise<Account> {
  const { email, name } = input;
  if (!z.email().safeParse(email).success) throw new SignupFailure("Enter a valid email address");
  if (!name) throw new SignupFailure("Enter your name");
  if (hasControlCharacter(name)) {
    throw new SignupFailure("Your name must be one line without control characters");
  }
  if (input.password.length < MIN_PASSWORD_LENGTH) {
    throw new SignupFailure(`The password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  const created = await createAccount(deps.kv, {
    id: crypto.randomUUID(),
    email,
    name,
    passwordHash: await hashPassword(input.password),
    createdAt: deps.clock.now().toISOString(),
  }, { consumeSetupToken: Boolean(input.setup) });
  if (!created) throw new SignupFailure("An account with this email already exists", 409);
  return created;
}
