/**
 * Login throttling: sign-in attempts are counted per account email and per
 * client address before the password is checked; past a threshold each
 * further attempt doubles a lockout. A successful sign-in gives its attempt
 * back. Counting first is what bounds the guesses that are evaluated, even
 * when many arrive at once.
 */
import type { LoginCounter, LoginScope, LoginVerdict } from "../domain/account.ts";
import { rateLimited } from "../domain/errors.ts";
import {
  readLoginCounters,
  releaseLoginAttempt,
  reserveLoginAttempt,
} from "../store/login_attempts.ts";

const WINDOW_MS = 15 * 60 * 1000;
const BASE_LOCK_MS = 30 * 1000;
const MAX_LOCK_MS = 15 * 60 * 1000;
const COUNTER_TTL_MS = WINDOW_MS + MAX_LOCK_MS;
/** Attempts evaluated before the first lockout (docs/sign-in-lockout.md). */
export const FREE_ATTEMPTS = { email: 5, ip: 20 } as const;

export interface LoginSubjects {
  email: string;
  ip: string;
}

/** The policy for one counter at `now`: locked, or the counter with this attempt added. */
export function decideLoginAttempt(
  scope: LoginScope,
  counter: LoginCounter | null,
  now: number,
): LoginVerdict {
  const current = counter && now - counter.lastAt < WINDOW_MS ? counter.count : 0;
  const over = current - FREE_ATTEMPTS[scope];
  if (counter && over >= 0) {
    const until = counter.lastAt + Math.min(BASE_LOCK_MS * 2 ** over, MAX_LOCK_MS);
    if (until > now) return { retryAfterMs: until - now };
  }
  return { next: { count: current + 1, lastAt: now } };
}

/**
 * Counts one sign-in attempt, or throws `rate_limited` (with Retry-After)
 * while either counter is locked. Call it before checking the password.
 */
export async function beginLoginAttempt(
  kv: Deno.Kv,
  subjects: LoginSubjects,
  now: Date,
): Promise<void> {
  const at = now.getTime();
  const { retryAfterMs } = await reserveLoginAttempt(kv, subjects, {
    ttlMs: COUNTER_TTL_MS,
    decide: (scope, counter) => decideLoginAttempt(scope, counter, at),
  });
  if (retryAfterMs > 0) {
    throw rateLimited("Too many failed sign-in attempts; try again later", retryAfterMs / 1000);
  }
}

/** Gives back the attempt of a successful sign-in. */
export async function endLoginAttemptWithSuccess(
  kv: Deno.Kv,
  subjects: LoginSubjects,
): Promise<void> {
  await releaseLoginAttempt(kv, subjects, { ttlMs: COUNTER_TTL_MS });
}

/**
 * How long password sign-in stays locked at `now` for the email and for the client address,
 * each in milliseconds (0 where a password attempt would be evaluated). Changes nothing.
 */
export async function loginLockedForMs(
  kv: Deno.Kv,
  subjects: LoginSubjects,
  now: Date,
): Promise<Record<"email" | "ip", number>> {
  const counters = await readLoginCounters(kv, subjects);
  const at = now.getTime();
  const lockedFor = (scope: "email" | "ip") => {
    const verdict = decideLoginAttempt(scope, counters[scope], at);
    return "retryAfterMs" in verdict ? verdict.retryAfterMs : 0;
  };
  return { email: lockedFor("email"), ip: lockedFor("ip") };
}
