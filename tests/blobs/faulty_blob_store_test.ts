import assert from "node:assert/strict";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { blobKey, BlobStoreError } from "../../src/blobs/mod.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { createFaultyBlobStore } from "../support/faulty_blob_store.ts";

const encoder = new TextEncoder();

Deno.test("[blobs] createFaultyBlobStore() fails exactly the chosen put", async (t) => {
  await t.step("throws on the N-th put without storing it, then recovers", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createFaultyBlobStore(createKvBlobStore(kv), { failOnPut: 2 });

    const first = await store.put("evidence", encoder.encode("one"));
    await assert.rejects(
      store.put("artifact", encoder.encode("two")),
      (error) => error instanceof BlobStoreError && error.message === "Injected fault on put 2",
    );
    const third = await store.put("evidence", encoder.encode("three"));

    assert.deepEqual(await store.get(first), encoder.encode("one"));
    assert.deepEqual(await store.get(third), encoder.encode("three"));
    assert.equal(await store.has(blobKey("artifact", await sha256Hex("two"))), false);
  });

  await t.step("never fails without failOnPut", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createFaultyBlobStore(createKvBlobStore(kv));
    for (let i = 0; i < 5; i++) await store.put("evidence", encoder.encode(`blob ${i}`));
  });
});
