import assert from "node:assert/strict";
import { fakeClock } from "../../src/lib/clock.ts";
import { PUBLISH_LEASE } from "../../src/publish/publish.ts";
import { leaseKey } from "../../src/store/keys.ts";
import { LeaseTimeout, withLease } from "../../src/store/leases.ts";

const PROJECT = "00000000-0000-4000-8000-000000000001";
/** Far from the real time, so nothing here can pass by reading the real clock. */
const FAR_FUTURE = new Date("2040-01-01T00:00:00Z");

/** A promise and the function that settles it. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => resolve = r);
  return { promise, resolve };
}

/** Tries to take the lease without waiting; answers whether `fn` ran. */
async function tryTake(kv: Deno.Kv, lease: Parameters<typeof withLease>[1]) {
  try {
    return await withLease(kv, { ...lease, waitMs: 0 }, () => Promise.resolve(true));
  } catch (error) {
    if (error instanceof LeaseTimeout) return false;
    throw error;
  }
}

Deno.test("[store] withLease() takes over a publish lease left by a crashed holder within seconds", async () => {
  await using kv = await Deno.openKv(":memory:");
  const clock = fakeClock(FAR_FUTURE);
  const lease = { ...PUBLISH_LEASE(PROJECT), clock };
  assert.ok(lease.ttlMs <= 10_000, "a crashed holder blocks publishes for seconds at most");
  const crashed = deferred();
  // A holder that never renews and never finishes is what a crashed instance leaves behind.
  const holder = withLease(kv, { ...lease, renewEveryMs: 3_600_000 }, () => crashed.promise);
  for (let i = 0; i < 100 && (await kv.get(leaseKey("publish", PROJECT))).value === null; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(await tryTake(kv, lease), false, "held while within its lease time");
  clock.advance(lease.ttlMs - 1);
  assert.equal(await tryTake(kv, lease), false, "still held just before it ends");
  clock.advance(2);
  assert.equal(await tryTake(kv, lease), true, "free once the lease time has passed");
  crashed.resolve();
  await holder;
});

Deno.test("[store] withLease() renews the lease while its holder works", async () => {
  await using kv = await Deno.openKv(":memory:");
  const clock = fakeClock(FAR_FUTURE);
  const lease = { name: "test", id: PROJECT, ttlMs: 1000, waitMs: 0, renewEveryMs: 5, clock };
  const working = deferred();
  const holder = withLease(kv, lease, () => working.promise);
  const renewedPast = async (until: number) => {
    for (let i = 0; i < 400; i++) {
      const held = await kv.get<{ until: number }>(leaseKey("test", PROJECT));
      if (held.value && held.value.until >= until) return true;
      await new Promise((r) => setTimeout(r, 5));
    }
    return false;
  };
  for (let step = 1; step <= 3; step++) {
    clock.advance(900);
    assert.ok(await renewedPast(clock.now().getTime() + 1000), `renewed at step ${step}`);
    assert.equal(await tryTake(kv, lease), false, `held at step ${step}, past its first lease`);
  }
  working.resolve();
  await holder;
  assert.equal(await tryTake(kv, lease), true, "released when the work is done");
});

Deno.test("[store] withLease() releases the lease when the work fails", async () => {
  await using kv = await Deno.openKv(":memory:");
  const lease = { name: "test", id: PROJECT, ttlMs: 60_000, waitMs: 0 };
  await assert.rejects(
    withLease(kv, lease, () => Promise.reject(new Error("Publish failed"))),
    /Publish failed/,
  );
  assert.equal(await tryTake(kv, lease), true);
});
