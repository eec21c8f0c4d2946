import assert from "node:assert/strict";
import { blobKey, type BlobStore, BlobStoreError } from "../../src/blobs/mod.ts";
import { sha256Hex } from "../../src/lib/hash.ts";

/** `size` random bytes; getRandomValues fills at most 64 KiB per call. */
export function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let offset = 0; offset < size; offset += 65_536) {
    crypto.getRandomValues(bytes.subarray(offset, offset + 65_536));
  }
  return bytes;
}

/** Keys that every BlobStore must refuse, mostly attempts to escape the blob namespace. */
export const MALFORMED_BLOB_KEYS: readonly string[] = [
  "",
  "evidence",
  "evidence/",
  `evidence/${"a".repeat(63)}`,
  `evidence/${"a".repeat(65)}`,
  `evidence/${"A".repeat(64)}`,
  `evidence/${"g".repeat(64)}`,
  `other/${"a".repeat(64)}`,
  `/evidence/${"a".repeat(64)}`,
  `evidence/${"a".repeat(64)}/`,
  `evidence//${"a".repeat(64)}`,
  `evidence/../artifact/${"a".repeat(64)}`,
  `../evidence/${"a".repeat(64)}`,
  `evidence/${"a".repeat(64)}?x-id=GetObject`,
  `evidence%2F${"a".repeat(64)}`,
];

/**
 * Runs the behaviour every BlobStore promises as one `t.step` per case, each on a store from
 * `makeStore` (which may return the same store: cases use distinct random payloads). Called
 * from one test per implementation so KV and S3 are held to identical expectations.
 */
export async function runBlobStoreContract(
  t: Deno.TestContext,
  makeStore: () => BlobStore | Promise<BlobStore>,
): Promise<void> {
  await t.step("round-trips bytes under <kind>/<sha256>", async () => {
    const store = await makeStore();
    const bytes = randomBytes(1000);
    const key = await store.put("evidence", bytes);
    assert.equal(key, `evidence/${await sha256Hex(bytes)}`);
    assert.equal(await store.has(key), true);
    assert.deepEqual(await store.get(key), bytes);
  });

  await t.step("putMany stores small, empty, large and repeated blobs in order", async () => {
    const store = await makeStore();
    const small = randomBytes(1024);
    const items = [small, new Uint8Array(0), randomBytes(200 * 1024), small, randomBytes(10)];
    const keys = await store.putMany("evidence", items);
    assert.equal(keys.length, items.length);
    assert.equal(keys[0], keys[3]);
    for (let i = 0; i < items.length; i++) {
      assert.equal(keys[i], blobKey("evidence", await sha256Hex(items[i])));
      assert.deepEqual(await store.get(keys[i]), items[i]);
    }
    assert.deepEqual(await store.putMany("evidence", items), keys);
  });

  await t.step("put is idempotent", async () => {
    const store = await makeStore();
    const bytes = randomBytes(3000);
    const first = await store.put("artifact", bytes);
    const second = await store.put("artifact", bytes.slice());
    assert.equal(second, first);
    assert.deepEqual(await store.get(first), bytes);
  });

  await t.step("keys the same bytes separately per kind", async () => {
    const store = await makeStore();
    const bytes = randomBytes(64);
    const evidence = await store.put("evidence", bytes);
    assert.equal(await store.has(evidence.replace("evidence/", "artifact/")), false);
    const artifact = await store.put("artifact", bytes);
    assert.notEqual(artifact, evidence);
    assert.deepEqual(await store.get(artifact), bytes);
  });

  await t.step("round-trips a document larger than one KV atomic", async () => {
    const store = await makeStore();
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const key = await store.put("document", bytes);
    assert.equal(key, `document/${await sha256Hex(bytes)}`);
    assert.equal(await store.has(key.replace("document/", "logo/")), false);
    const read = await store.get(key);
    assert.ok(read !== null && read.length === bytes.length);
    assert.ok(read.every((byte, i) => byte === bytes[i]), "bytes differ");
  });

  await t.step("answers null and false for an absent key", async () => {
    const store = await makeStore();
    const key = blobKey("evidence", await sha256Hex(randomBytes(32)));
    assert.equal(await store.get(key), null);
    assert.equal(await store.has(key), false);
  });

  await t.step("round-trips 0 bytes", async () => {
    const store = await makeStore();
    const key = await store.put("artifact", new Uint8Array(0));
    assert.equal(key, `artifact/${await sha256Hex("")}`);
    assert.equal(await store.has(key), true);
    assert.deepEqual(await store.get(key), new Uint8Array(0));
  });

  await t.step("round-trips a 5 MiB payload byte-for-byte", async () => {
    const store = await makeStore();
    const bytes = randomBytes(5 * 1024 * 1024);
    const key = await store.put("evidence", bytes);
    const read = await store.get(key);
    assert.ok(read !== null);
    assert.equal(read.length, bytes.length);
    assert.ok(read.every((byte, i) => byte === bytes[i]), "bytes differ");
  });

  await t.step("rejects malformed keys with a BlobStoreError", async () => {
    const store = await makeStore();
    for (const key of MALFORMED_BLOB_KEYS) {
      const isKeyError = (error: unknown) =>
        error instanceof BlobStoreError && error.message.includes("<kind>/<64 hex>");
      await assert.rejects(store.get(key), isKeyError, `get("${key}")`);
      await assert.rejects(store.has(key), isKeyError, `has("${key}")`);
      await assert.rejects(store.delete(key), isKeyError, `delete("${key}")`);
      await assert.rejects(store.stat(key), isKeyError, `stat("${key}")`);
    }
  });

  await t.step("delete removes a blob once; it can be stored again", async () => {
    const store = await makeStore();
    const bytes = randomBytes(200 * 1024);
    const key = await store.put("evidence", bytes);
    assert.equal(await store.delete(key), true);
    assert.equal(await store.has(key), false);
    assert.equal(await store.get(key), null);
    assert.equal(await store.delete(key), false);
    assert.equal(await store.stat(key), null);
    assert.equal(await store.put("evidence", bytes), key);
    assert.deepEqual(await store.get(key), bytes);
  });

  await t.step("delete with storedBefore keeps a blob stored at or after it", async () => {
    const store = await makeStore();
    const key = await store.put("artifact", randomBytes(500));
    const tenMinutes = 10 * 60 * 1000;
    assert.equal(await store.delete(key, { storedBefore: Date.now() - tenMinutes }), false);
    assert.equal(await store.has(key), true);
    assert.equal(await store.delete(key, { storedBefore: Date.now() + tenMinutes }), true);
    assert.equal(await store.has(key), false);
  });

  await t.step("list pages through every blob in key order with size and stamp", async () => {
    const store = await makeStore();
    const items = [randomBytes(10), randomBytes(40 * 1024), randomBytes(70 * 1024)];
    const keys = await store.putMany("document", items);
    for (let i = 0; i < items.length; i++) {
      assert.equal((await store.stat(keys[i]))?.size, items[i].length);
    }
    const seen = new Map<string, { size: number; storedAt: number }>();
    let after: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const blobs = await store.list({ after, limit: 2 });
      assert.ok(blobs.length <= 2);
      if (blobs.length === 0) break;
      for (const blob of blobs) {
        assert.ok(after === undefined || blob.key > after, `${blob.key} after ${after}`);
        after = blob.key;
        seen.set(blob.key, blob);
      }
    }
    const day = 24 * 3600 * 1000;
    keys.forEach((key, i) => {
      const listed = seen.get(key);
      assert.ok(listed, `${key} listed`);
      assert.equal(listed.size, items[i].length);
      assert.ok(Math.abs(listed.storedAt - Date.now()) < day, `stamp ${listed.storedAt}`);
    });
  });
}
