/**
 * A KV that watches every commit sent through it: a commit that mutates a key of a public
 * collection (src/store/tenant_keys.ts) without bumping a generation of the stored public pages
 * (src/store/edge_pages.ts) in the same commit is recorded as missing its touch, unless it was
 * made deliberately around the commit path (`untracked`, the deletion job). Placed under the
 * service's own wrapper, it sees what the service really sends.
 */
import { effectOf, isDeliberatelyUntracked } from "../../src/store/public_writes.ts";

export interface CommitAudit {
  kv: Deno.Kv;
  /** Commits that mutated public data without its touch, each as the keys it mutated. */
  missing: string[];
  /** Commits that mutated public data, each with its touch. */
  touched: number;
}

const show = (key: Deno.KvKey) => JSON.stringify(key, (_, v) => typeof v === "bigint" ? `${v}` : v);

/** `kv` with its commits audited. */
export function auditCommits(kv: Deno.Kv): CommitAudit {
  const audit: CommitAudit = { kv, missing: [], touched: 0 };
  const judge = (keys: Deno.KvKey[], deliberate: boolean, created: Set<string>) => {
    // A project's creation publishes nothing: its own keys alter no page yet.
    const publicKeys = keys.filter((key) => {
      const effect = effectOf(key);
      if (effect === "none") return false;
      return !(typeof effect === "object" && "project" in effect &&
        created.has(String(key[effect.project])));
    });
    if (publicKeys.length === 0 || deliberate) return;
    if (keys.some((key) => key[0] === "edge_gen")) audit.touched++;
    else audit.missing.push(publicKeys.map(show).join(" "));
  };
  const atomic = () => {
    const inner = kv.atomic();
    const keys: Deno.KvKey[] = [];
    const op: Deno.AtomicOperation = {
      check: (...checks) => (inner.check(...checks), op),
      mutate: (
        ...mutations
      ) => (mutations.forEach((m) => keys.push(m.key)), inner.mutate(...mutations), op),
      sum: (key, n) => (keys.push(key), inner.sum(key, n), op),
      min: (key, n) => (keys.push(key), inner.min(key, n), op),
      max: (key, n) => (keys.push(key), inner.max(key, n), op),
      set: (key, value, options) => (keys.push(key), inner.set(key, value, options), op),
      delete: (key) => (keys.push(key), inner.delete(key), op),
      enqueue: (value, options) => (inner.enqueue(value, options), op),
      commit: async () => {
        const created = new Set<string>();
        for (const key of keys) {
          if (key[0] === "projects" && key.length === 2 && !(await kv.get(key)).versionstamp) {
            created.add(String(key[1]));
          }
        }
        const result = await inner.commit();
        if (result.ok) judge(keys, isDeliberatelyUntracked(op), created);
        return result;
      },
    };
    return op;
  };
  const wrapped: Partial<Deno.Kv> = {
    atomic,
    set: async (key, value, options) => {
      const result = await kv.set(key, value, options);
      judge([key], false, new Set());
      return result;
    },
    delete: async (key) => {
      await kv.delete(key);
      judge([key], false, new Set());
    },
  };
  audit.kv = new Proxy(kv, {
    get(target, property) {
      if (Object.hasOwn(wrapped, property)) return wrapped[property as keyof Deno.Kv];
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return audit;
}
