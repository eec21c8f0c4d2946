/**
 * Sign-in attempt counters, one per account email and one per client address.
 * An attempt is counted before its password is checked, in one atomic with
 * both counters, so concurrent guesses cannot all slip past a limit that each
 * of them read before any was counted.
 */
import type { LoginCounter, LoginScope, LoginVerdict } from "../domain/account.ts";
import { loginFailuresKey } from "./keys.ts";

const SCOPES: LoginScope[] = ["email", "ip"];
/** Commits tried before a contended reservation gives up (and the attempt is refused). */
const MAX_COMMITS = 20;

/**
 * Counts one attempt against both counters when `decide` lets both through,
 * and answers the longest lock otherwise. Counters live `ttlMs` after their
 * last attempt. When the counters keep changing under it, it refuses the
 * attempt (retry after a second) rather than letting an uncounted guess in.
 */
export async function reserveLoginAttempt(
  kv: Deno.Kv,
  subjects: Record<LoginScope, string>,
  options: {
    ttlMs: number;
    decide: (scope: LoginScope, counter: LoginCounter | null) => LoginVerdict;
  },
): Promise<{ retryAfterMs: number }> {
  const keys = SCOPES.map((scope) => loginFailuresKey(scope, subjects[scope]));
  for (let attempt = 0; attempt < MAX_COMMITS; attempt++) {
    const entries = await kv.getMany<LoginCounter[]>(keys);
    const verdicts = SCOPES.map((scope, i) => options.decide(scope, entries[i].value));
    const locked = Math.max(
      0,
      ...verdicts.map((v) => ("retryAfterMs" in v ? v.retryAfterMs : 0)),
    );
    if (locked > 0) return { retryAfterMs: locked };
    const op = kv.atomic();
    verdicts.forEach((verdict, i) => {
      if ("next" in verdict) {
        op.check(entries[i]).set(keys[i], verdict.next, { expireIn: options.ttlMs });
      }
    });
    if ((await op.commit()).ok) return { retryAfterMs: 0 };
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * (attempt + 1)));
  }
  return { retryAfterMs: 1000 };
}

/**
 * Gives back the attempt of a successful sign-in: the email's counter is
 * cleared and the address's is lowered by one, so people who sign in
 * correctly never lock out their office's shared address.
 */
export async function releaseLoginAttempt(
  kv: Deno.Kv,
  subjects: Record<LoginScope, string>,
  options: { ttlMs: number },
): Promise<void> {
  await kv.delete(loginFailuresKey("email", subjects.email));
  const key = loginFailuresKey("ip", subjects.ip);
  for (let attempt = 0; attempt < MAX_COMMITS; attempt++) {
    const entry = await kv.get<LoginCounter>(key);
    if (!entry.value || entry.value.count <= 0) return;
    const next = { ...entry.value, count: entry.value.count - 1 };
    if ((await kv.atomic().check(entry).set(key, next, { expireIn: options.ttlMs }).commit()).ok) {
      return;
    }
  }
}

/** The current counters of an email and an address (null where none), without changing them. */
export async function readLoginCounters(
  kv: Deno.Kv,
  subjects: Record<LoginScope, string>,
): Promise<Record<LoginScope, LoginCounter | null>> {
  const [email, ip] = await kv.getMany<LoginCounter[]>(
    SCOPES.map((scope) => loginFailuresKey(scope, subjects[scope])),
  );
  return { email: email.value, ip: ip.value };
}
