import assert from "node:assert/strict";
import { isTransientKvError, withKvRetry } from "../../src/store/kv_retry.ts";

const locked = () => new TypeError("database is locked");
const noSleep = { sleep: () => Promise.resolve() };

/**
 * A real KV whose operations fail with SQLite's "database is locked" the first
 * `failures` times each is called (list: on the `failAt`-th entry), without
 * doing anything, as a commit that lost the write lock does.
 */
function lockedAtFirst(kv: Deno.Kv, failures: number, failAt = 10) {
  const calls = new Map<string, number>();
  const fails = (name: string) => {
    const n = (calls.get(name) ?? 0) + 1;
    calls.set(name, n);
    return n <= failures;
  };
  return {
    calls,
    kv: new Proxy(kv, {
      get(target, property) {
        const name = String(property);
        if (name === "atomic") {
          return () => {
            const op = target.atomic();
            const commit = op.commit.bind(op);
            op.commit = () => fails("commit") ? Promise.reject(locked()) : commit();
            return op;
          };
        }
        if (name === "list") {
          return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
            const inner = target.list(selector, options);
            let seen = 0;
            const next = inner.next.bind(inner);
            inner.next = () =>
              ++seen === failAt && fails("list") ? Promise.reject(locked()) : next();
            return inner;
          };
        }
        const value = Reflect.get(target, property, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) =>
          ["get", "getMany", "set", "delete"].includes(name) && fails(name)
            ? Promise.reject(locked())
            : value.apply(target, args);
      },
    }),
  };
}

Deno.test("[store] isTransientKvError() knows SQLite's busy answers", () => {
  assert.equal(isTransientKvError(new TypeError("database is locked")), true);
  assert.equal(isTransientKvError(new Error("database is busy")), true);
  assert.equal(isTransientKvError(new TypeError("Value too large (max 65536 bytes)")), false);
  assert.equal(isTransientKvError("database is locked"), false);
});

Deno.test("[store] withKvRetry() retries transient errors", async (t) => {
  await t.step("a checked commit is applied once after three locked tries", async () => {
    await using raw = await Deno.openKv(":memory:");
    const flaky = lockedAtFirst(raw, 3);
    const kv = withKvRetry(flaky.kv, noSleep);
    const res = await kv.atomic().check({ key: ["a"], versionstamp: null }).set(["a"], 1)
      .sum(["n"], 1n).commit();
    assert.equal(res.ok, true);
    assert.equal(flaky.calls.get("commit"), 4);
    assert.equal((await raw.get(["a"])).value, 1);
    assert.equal((await raw.get<Deno.KvU64>(["n"])).value?.value, 1n, "applied exactly once");
  });

  await t.step("get, getMany, set and delete", async () => {
    await using raw = await Deno.openKv(":memory:");
    const flaky = lockedAtFirst(raw, 2);
    const kv = withKvRetry(flaky.kv, noSleep);
    await kv.set(["b"], "x");
    assert.equal((await kv.get(["b"])).value, "x");
    assert.deepEqual((await kv.getMany([["b"], ["c"]])).map((e) => e.value), ["x", null]);
    await kv.delete(["b"]);
    assert.equal((await raw.get(["b"])).value, null);
    for (const name of ["set", "get", "getMany", "delete"]) {
      assert.equal(flaky.calls.get(name), 3, name);
    }
  });

  await t.step("a listing resumes after its last entry: none lost, none twice", async () => {
    await using raw = await Deno.openKv(":memory:");
    for (let i = 0; i < 25; i++) await raw.set(["items", i], i);
    const kv = withKvRetry(lockedAtFirst(raw, 2, 10).kv, noSleep);
    const seen: number[] = [];
    const iterator = kv.list<number>({ prefix: ["items"] }, { batchSize: 4 });
    for await (const entry of iterator) seen.push(entry.value);
    assert.deepEqual(seen, Array.from({ length: 25 }, (_, i) => i));
    const limited: number[] = [];
    const again = withKvRetry(lockedAtFirst(raw, 1, 5).kv, noSleep);
    for await (const entry of again.list<number>({ prefix: ["items"] }, { limit: 12 })) {
      limited.push(entry.value);
    }
    assert.deepEqual(limited, Array.from({ length: 12 }, (_, i) => i), "the limit still holds");
  });

  await t.step("other errors are not retried; retries are bounded", async () => {
    await using raw = await Deno.openKv(":memory:");
    const kv = withKvRetry(raw, noSleep);
    await assert.rejects(kv.set(["big"], new Uint8Array(70_000)), /too large/i);
    const flaky = lockedAtFirst(raw, 1000);
    await assert.rejects(withKvRetry(flaky.kv, { ...noSleep, attempts: 5 }).get(["a"]), /locked/);
    assert.equal(flaky.calls.get("get"), 5);
  });

  await t.step("everything else reaches the real KV", async () => {
    await using raw = await Deno.openKv(":memory:");
    const kv = withKvRetry(raw, noSleep);
    assert.ok(kv instanceof Deno.Kv);
    assert.equal(typeof kv.listenQueue, "function");
    assert.equal(typeof kv.commitVersionstamp(), "symbol");
  });
});
