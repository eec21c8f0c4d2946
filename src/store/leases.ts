/**
 * Leases: mutual exclusion through KV, so work that must not interleave
 * (publishing one project) runs one at a time even across instances. A
 * lease expires by itself, so a crashed holder cannot block others forever.
 */
import { leaseKey } from "./keys.ts";

export class LeaseTimeout extends Error {
  override name = "LeaseTimeout";
}

/**
 * Runs `fn` while holding the lease `name/id`, waiting up to `waitMs` for
 * it. The lease lasts `ttlMs`; `fn` should finish well within it.
 */
export async function withLease<T>(
  kv: Deno.Kv,
  lease: { name: string; id: string; ttlMs: number; waitMs: number },
  fn: () => Promise<T>,
): Promise<T> {
  const key = leaseKey(lease.name, lease.id);
  const token = crypto.randomUUID();
  const deadline = Date.now() + lease.waitMs;
  for (let attempt = 0;; attempt++) {
    const current = await kv.get<{ token: string; until: number }>(key);
    const free = current.value === null || current.value.until < Date.now();
    if (free) {
      const res = await kv.atomic().check(current)
        .set(key, { token, until: Date.now() + lease.ttlMs }, { expireIn: lease.ttlMs })
        .commit();
      if (res.ok) break;
    }
    if (Date.now() > deadline) {
      throw new LeaseTimeout(`Timed out waiting for ${lease.name} ${lease.id}`);
    }
    await new Promise((r) => setTimeout(r, 5 + Math.random() * Math.min(10 * (attempt + 1), 100)));
  }
  try {
    return await fn();
  } finally {
    const held = await kv.get<{ token: string }>(key);
    if (held.value?.token === token) await kv.atomic().check(held).delete(key).commit();
  }
}
