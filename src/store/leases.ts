/**
 * Leases: mutual exclusion through KV, so work that must not interleave
 * (publishing one project) runs one at a time even across instances. A
 * lease is short and renewed while its holder works, so a crashed holder
 * blocks others for at most one lease time, never for the length of a job.
 */
import type { Clock } from "../lib/clock.ts";
import { systemClock } from "../lib/clock.ts";
import { leaseKey } from "./keys.ts";

export class LeaseTimeout extends Error {
  override name = "LeaseTimeout";
}

interface LeaseRecord {
  token: string;
  until: number;
}

export interface LeaseOptions {
  name: string;
  id: string;
  /** How long the lease lasts without renewal, e.g. a few seconds. */
  ttlMs: number;
  /** How long to wait for a held lease before giving up with `LeaseTimeout`. */
  waitMs: number;
  /** How often the holder renews (default a third of `ttlMs`). */
  renewEveryMs?: number;
  clock?: Clock;
}

/** Takes the lease if it is free or expired; returns whether it was taken. */
async function tryAcquire(kv: Deno.Kv, key: Deno.KvKey, lease: LeaseOptions, token: string) {
  const now = (lease.clock ?? systemClock).now().getTime();
  const current = await kv.get<LeaseRecord>(key);
  if (current.value !== null && current.value.until >= now) return false;
  const record: LeaseRecord = { token, until: now + lease.ttlMs };
  return (await kv.atomic().check(current).set(key, record, { expireIn: lease.ttlMs }).commit()).ok;
}

/** Extends the lease if `token` still holds it; returns false once it was lost. */
async function renew(kv: Deno.Kv, key: Deno.KvKey, lease: LeaseOptions, token: string) {
  const held = await kv.get<LeaseRecord>(key);
  if (held.value?.token !== token) return false;
  const until = (lease.clock ?? systemClock).now().getTime() + lease.ttlMs;
  const record: LeaseRecord = { token, until };
  return (await kv.atomic().check(held).set(key, record, { expireIn: lease.ttlMs }).commit()).ok;
}

async function release(kv: Deno.Kv, key: Deno.KvKey, token: string) {
  const held = await kv.get<LeaseRecord>(key);
  if (held.value?.token === token) await kv.atomic().check(held).delete(key).commit();
}

/**
 * Runs `fn` while holding the lease `name/id`, waiting up to `waitMs` for
 * it. While `fn` runs the lease is renewed every `renewEveryMs`; it is
 * released when `fn` settles. If renewal fails (the holder was paused past
 * the lease time and someone else took over), `fn` goes on: callers keep a
 * check in their final commit, so the lease is an optimization, not the guard.
 */
export async function withLease<T>(
  kv: Deno.Kv,
  lease: LeaseOptions,
  fn: () => Promise<T>,
): Promise<T> {
  const key = leaseKey(lease.name, lease.id);
  const token = crypto.randomUUID();
  const clock = lease.clock ?? systemClock;
  const deadline = clock.now().getTime() + lease.waitMs;
  for (let attempt = 0; !(await tryAcquire(kv, key, lease, token)); attempt++) {
    if (clock.now().getTime() >= deadline) {
      throw new LeaseTimeout(`Timed out waiting for ${lease.name} "${lease.id}"`);
    }
    await new Promise((r) => setTimeout(r, 5 + Math.random() * Math.min(10 * (attempt + 1), 100)));
  }
  let renewing = Promise.resolve(true);
  const timer = setInterval(() => {
    renewing = renewing.then((held) => held && renew(kv, key, lease, token)).catch(() => false);
  }, lease.renewEveryMs ?? Math.max(1, Math.floor(lease.ttlMs / 3)));
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    await renewing;
    await release(kv, key, token).catch(() => {
      // The lease expires by itself within ttlMs.
    });
  }
}
