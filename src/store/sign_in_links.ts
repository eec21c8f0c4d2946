/**
 * Emailed one-time sign-in links (stored only as the SHA-256 of their token, expiring with
 * the link) and the counters that limit how many are asked for per email and per address.
 */
import type { SignInLink } from "../domain/account.ts";
import { conflict } from "../domain/errors.ts";
import { signInLinkKey, signInLinkRequestsKey } from "./keys.ts";

const MAX_ATTEMPTS = 10;

/** Stores a new link under the hash of its token; KV drops it `ttlMs` later. */
export async function saveSignInLink(
  kv: Deno.Kv,
  tokenHash: string,
  link: SignInLink,
  ttlMs: number,
): Promise<void> {
  await kv.set(signInLinkKey(tokenHash), link, { expireIn: ttlMs });
}

/** The link stored under `tokenHash`, without using it; null when there is none. */
export async function peekSignInLink(kv: Deno.Kv, tokenHash: string): Promise<SignInLink | null> {
  return (await kv.get<SignInLink>(signInLinkKey(tokenHash))).value;
}

/**
 * Uses the link stored under `tokenHash`: deletes it in an atomic that checks it is still
 * there, so of two concurrent uses only one gets it. Null when it is gone (used, expired
 * or never issued).
 */
export async function takeSignInLink(kv: Deno.Kv, tokenHash: string): Promise<SignInLink | null> {
  const entry = await kv.get<SignInLink>(signInLinkKey(tokenHash));
  if (entry.value === null) return null;
  const taken = await kv.atomic().check(entry).delete(entry.key).commit();
  return taken.ok ? entry.value : null;
}

interface WindowCounter {
  count: number;
  windowStart: number;
}

/**
 * Counts one link request against the email and the client address, each allowed `max`
 * per window. Resolves with 0 when counted, or the milliseconds until the fuller counter's
 * window ends (then nothing is counted).
 */
export async function countSignInLinkRequest(
  kv: Deno.Kv,
  subjects: { email: string; ip: string },
  options: { now: Date; windowMs: number; max: { email: number; ip: number } },
): Promise<number> {
  const at = options.now.getTime();
  const scopes = ["email", "ip"] as const;
  const keys = scopes.map((scope) => signInLinkRequestsKey(scope, subjects[scope]));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entries = await kv.getMany<WindowCounter[]>(keys);
    const op = kv.atomic();
    let wait = 0;
    entries.forEach((entry, i) => {
      op.check(entry);
      const live = entry.value && at - entry.value.windowStart < options.windowMs
        ? entry.value
        : null;
      if (live && live.count >= options.max[scopes[i]]) {
        wait = Math.max(wait, live.windowStart + options.windowMs - at);
      }
      const next = live ? { ...live, count: live.count + 1 } : { count: 1, windowStart: at };
      op.set(entry.key, next, { expireIn: options.windowMs });
    });
    if (wait > 0) return wait;
    if ((await op.commit()).ok) return 0;
  }
  throw conflict("Too many requests at once; please retry");
}
