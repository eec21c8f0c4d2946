/**
 * Emailed one-time sign-in links (stored only as the SHA-256 of their token, expiring with
 * the link), the counters that limit how many are asked for per email and per address, and
 * the job each counted request stages (the account is looked up and mailed after the answer).
 */
import type { SignInLink } from "../domain/account.ts";
import { conflict } from "../domain/errors.ts";
import { stageJob } from "./jobs.ts";
import { signInLinkKey, signInLinkRequestsKey, signInLinkSendingKey } from "./keys.ts";

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

/** The job that looks the account up and emails it a link, after the request was answered. */
export interface SignInLinkMessage {
  kind: "sign-in-link";
  /** Unique per counted request: the job's id, and what marks its email as being sent. */
  requestId: string;
  email: string;
  request: SignInLink["request"];
  /** When it was asked for (epoch ms). */
  askedAt: number;
  [field: string]: unknown;
}

/**
 * Records one request for a sign-in link, whatever the address: counts it against the email
 * and the client address (each allowed `max` per window) and stages the "sign-in-link" job
 * that will look the account up and email it `delayMs` later, in one atomic commit. The job's id is the
 * email's hash (`emailHash`) with its window and count, so a request is staged once. Resolves
 * with 0 when recorded, or the milliseconds until the fuller counter's window ends (then
 * nothing is recorded).
 */
export async function stageSignInLinkRequest(
  kv: Deno.Kv,
  input: { email: string; emailHash: string; ip: string; request: SignInLink["request"] },
  options: { now: Date; delayMs: number; windowMs: number; max: { email: number; ip: number } },
): Promise<number> {
  const at = options.now.getTime();
  const scopes = ["email", "ip"] as const;
  const keys = scopes.map((scope) => signInLinkRequestsKey(scope, input[scope]));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entries = await kv.getMany<WindowCounter[]>(keys);
    const op = kv.atomic();
    let wait = 0;
    const counted = entries.map((entry, i) => {
      op.check(entry);
      const live = entry.value && at - entry.value.windowStart < options.windowMs
        ? entry.value
        : null;
      if (live && live.count >= options.max[scopes[i]]) {
        wait = Math.max(wait, live.windowStart + options.windowMs - at);
      }
      const next = live ? { ...live, count: live.count + 1 } : { count: 1, windowStart: at };
      op.set(entry.key, next, { expireIn: options.windowMs });
      return next;
    });
    if (wait > 0) return wait;
    const requestId = `sign-in-link.${input.emailHash}.${counted[0].windowStart}.${
      counted[0].count
    }`;
    const message: SignInLinkMessage = {
      kind: "sign-in-link",
      requestId,
      email: input.email,
      request: input.request,
      askedAt: at,
    };
    stageJob(op, message, { now: options.now, dueAt: at + options.delayMs, id: requestId });
    if ((await op.commit()).ok) return 0;
  }
  throw conflict("Too many requests at once; please retry");
}

/**
 * Marks a request's email as being sent, once: false when it was marked already (a run
 * that stopped while sending; its email is not sent again).
 */
export async function markSignInLinkSending(
  kv: Deno.Kv,
  requestId: string,
  options: { ttlMs: number },
): Promise<boolean> {
  const key = signInLinkSendingKey(requestId);
  const res = await kv.atomic().check({ key, versionstamp: null })
    .set(key, true, { expireIn: options.ttlMs })
    .commit();
  return res.ok;
}

/** Undoes the mark and the link of a sending that failed, so the job's next run tries again. */
export async function unmarkSignInLinkSending(
  kv: Deno.Kv,
  requestId: string,
  tokenHash: string,
): Promise<void> {
  await kv.atomic()
    .delete(signInLinkSendingKey(requestId))
    .delete(signInLinkKey(tokenHash))
    .commit();
}
