/**
 * Login throttling: failed sign-ins are counted per account email and per
 * client address; past a threshold each further failure doubles a lockout.
 */
import { rateLimited } from "../domain/errors.ts";
import { loginFailuresKey } from "../store/keys.ts";

const WINDOW_MS = 15 * 60 * 1000;
const BASE_LOCK_MS = 30 * 1000;
const MAX_LOCK_MS = 15 * 60 * 1000;
const FREE_ATTEMPTS = { email: 5, ip: 20 } as const;

interface Failures {
  count: number;
  lastAt: number;
}

type Scope = keyof typeof FREE_ATTEMPTS;

function lockUntil(scope: Scope, failures: Failures): number {
  const over = failures.count - FREE_ATTEMPTS[scope];
  if (over < 0) return 0;
  return failures.lastAt + Math.min(BASE_LOCK_MS * 2 ** over, MAX_LOCK_MS);
}

/** Throws `rate_limited` (with Retry-After) while either counter is locked. */
export async function assertLoginAllowed(
  kv: Deno.Kv,
  subjects: { email: string; ip: string },
  now: Date,
): Promise<void> {
  for (const scope of ["email", "ip"] as const) {
    const entry = await kv.get<Failures>(loginFailuresKey(scope, subjects[scope]));
    if (!entry.value) continue;
    const until = lockUntil(scope, entry.value);
    if (until > now.getTime()) {
      throw rateLimited(
        "Too many failed sign-in attempts; try again later",
        (until - now.getTime()) / 1000,
      );
    }
  }
}

/** Counts one failed attempt against both counters. */
export async function recordLoginFailure(
  kv: Deno.Kv,
  subjects: { email: string; ip: string },
  now: Date,
): Promise<void> {
  for (const scope of ["email", "ip"] as const) {
    const key = loginFailuresKey(scope, subjects[scope]);
    for (let attempt = 0; attempt < 5; attempt++) {
      const entry = await kv.get<Failures>(key);
      const count = entry.value && now.getTime() - entry.value.lastAt < WINDOW_MS
        ? entry.value.count + 1
        : 1;
      const res = await kv.atomic().check(entry)
        .set(key, { count, lastAt: now.getTime() }, { expireIn: WINDOW_MS + MAX_LOCK_MS })
        .commit();
      if (res.ok) break;
    }
  }
}

/** Clears the account's counter after a successful sign-in. */
export async function clearLoginFailures(kv: Deno.Kv, email: string): Promise<void> {
  await kv.delete(loginFailuresKey("email", email));
}
