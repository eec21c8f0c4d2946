import assert from "node:assert/strict";
import {
  clearPendingRecompute,
  enqueueRecompute,
  getPendingRecompute,
  isRecomputeMessage,
  type RecomputeMessage,
} from "../../src/store/recompute_queue.ts";

const PROJECT = "6f1c7f0e-2d47-4f8e-9d5a-0c7e1b2a3d4e";

Deno.test("[store] enqueueRecompute() keeps one pending recompute per project", async (t) => {
  using kv = await Deno.openKv(":memory:");
  const message: RecomputeMessage = { kind: "recompute", projectId: PROJECT, dueAt: 1000 };

  await t.step("the first enqueue records the marker", async () => {
    const pending = await getPendingRecompute(kv, PROJECT);
    assert.equal(pending.value, null);
    assert.equal(await enqueueRecompute(kv, pending, { message, delayMs: 0 }), true);
    assert.deepEqual((await getPendingRecompute(kv, PROJECT)).value, { dueAt: 1000 });
  });

  await t.step("an enqueue from a stale read is refused", async () => {
    const stale = {
      key: (await getPendingRecompute(kv, PROJECT)).key,
      value: null,
      versionstamp: null,
    };
    const later = { ...message, dueAt: 2000 };
    assert.equal(await enqueueRecompute(kv, stale, { message: later, delayMs: 0 }), false);
    assert.deepEqual((await getPendingRecompute(kv, PROJECT)).value, { dueAt: 1000 });
  });

  await t.step("clearing names the message: another due time keeps the marker", async () => {
    await clearPendingRecompute(kv, { ...message, dueAt: 999 });
    assert.deepEqual((await getPendingRecompute(kv, PROJECT)).value, { dueAt: 1000 });
    await clearPendingRecompute(kv, message);
    assert.equal((await getPendingRecompute(kv, PROJECT)).value, null);
  });
});

Deno.test("[store] isRecomputeMessage() accepts only recompute messages", () => {
  assert.equal(isRecomputeMessage({ kind: "recompute", projectId: PROJECT, dueAt: 1 }), true);
  for (const other of [null, "recompute", { kind: "publish" }, { kind: "recompute", dueAt: "1" }]) {
    assert.equal(isRecomputeMessage(other), false, JSON.stringify(other));
  }
});
