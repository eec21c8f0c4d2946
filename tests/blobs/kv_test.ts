import assert from "node:assert/strict";
import { blobChunkKey, blobMetaKey } from "../../src/store/keys.ts";
import {
  createKvBlobStore,
  KV_BLOB_CHUNK_BYTES,
  KV_BLOB_INLINE_BYTES,
  type KvBlobMeta,
} from "../../src/blobs/kv.ts";
import { BLOB_RESTAMP_MS, BlobStoreError } from "../../src/blobs/mod.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { randomBytes, runBlobStoreContract } from "./contract.ts";

Deno.test("[blobs] kv store satisfies the BlobStore contract", async (t) => {
  const opened: Deno.Kv[] = [];
  try {
    await runBlobStoreContract(t, async () => {
      const kv = await Deno.openKv(":memory:");
      opened.push(kv);
      return createKvBlobStore(kv);
    });
  } finally {
    for (const kv of opened) kv.close();
  }
});

async function countChunks(kv: Deno.Kv, key: string): Promise<number> {
  let count = 0;
  const chunks = kv.list({ start: blobChunkKey(key, 0), end: blobChunkKey(key, Infinity) });
  for await (const _ of chunks) count++;
  return count;
}

Deno.test("[blobs] kv store specifics", async (t) => {
  await t.step(
    "keeps small blobs inside the meta record and splits larger ones into 60 KiB chunks",
    async () => {
      using kv = await Deno.openKv(":memory:");
      const storedAt = Date.parse("2026-11-01T12:00:00Z");
      const store = createKvBlobStore(kv, { now: () => storedAt });
      const cases = [
        { size: 0, chunks: 0, inline: true },
        { size: 1, chunks: 0, inline: true },
        { size: KV_BLOB_INLINE_BYTES, chunks: 0, inline: true },
        { size: KV_BLOB_INLINE_BYTES + 1, chunks: 1, inline: false },
        { size: KV_BLOB_CHUNK_BYTES, chunks: 1, inline: false },
        { size: KV_BLOB_CHUNK_BYTES + 1, chunks: 2, inline: false },
        { size: 5 * 1024 * 1024, chunks: 86, inline: false },
      ];
      for (const { size, chunks, inline } of cases) {
        const bytes = randomBytes(size);
        const key = await store.put("evidence", bytes);
        const meta = (await kv.get<KvBlobMeta>(blobMetaKey(key))).value;
        const expected: KvBlobMeta = { size, chunks, sha256: await sha256Hex(bytes), storedAt };
        if (inline) expected.inline = bytes;
        assert.deepEqual(meta, expected, `size ${size}`);
        assert.equal(await countChunks(kv, key), chunks, `size ${size}`);
      }
    },
  );

  await t.step("get detects a corrupted inline blob", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const bytes = randomBytes(100);
    const key = await store.put("evidence", bytes);
    const meta = (await kv.get<KvBlobMeta>(blobMetaKey(key))).value!;
    const corrupted = meta.inline!.slice();
    corrupted[5] ^= 0xff;
    await kv.set(blobMetaKey(key), { ...meta, inline: corrupted });
    await assert.rejects(store.get(key), BlobStoreError);
  });

  await t.step("round-trips a 10 MiB payload across several atomics", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const bytes = randomBytes(10 * 1024 * 1024);
    const key = await store.put("artifact", bytes);
    assert.equal(await countChunks(kv, key), 171);
    const read = await store.get(key);
    assert.ok(read !== null && read.every((byte, i) => byte === bytes[i]), "bytes differ");
  });

  await t.step("a repeated put writes nothing", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const bytes = randomBytes(2 * KV_BLOB_CHUNK_BYTES);
    const key = await store.put("evidence", bytes);
    const before = await kv.getMany([blobMetaKey(key), blobChunkKey(key, 0), blobChunkKey(key, 1)]);
    await store.put("evidence", bytes);
    const after = await kv.getMany([blobMetaKey(key), blobChunkKey(key, 0), blobChunkKey(key, 1)]);
    assert.deepEqual(
      after.map((entry) => entry.versionstamp),
      before.map((entry) => entry.versionstamp),
    );
  });

  await t.step("chunks without a meta record are invisible until a put completes", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const bytes = randomBytes(3 * KV_BLOB_CHUNK_BYTES);
    const key = await store.put("evidence", bytes);
    // What a crash between the chunk atomics and the meta atomic leaves behind.
    await kv.delete(blobMetaKey(key));
    assert.equal(await store.has(key), false);
    assert.equal(await store.get(key), null);

    assert.equal(await store.put("evidence", bytes), key);
    assert.deepEqual(await store.get(key), bytes);
  });

  await t.step("get detects a corrupted chunk", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const bytes = randomBytes(2 * KV_BLOB_CHUNK_BYTES);
    const key = await store.put("evidence", bytes);
    const chunk = bytes.slice(KV_BLOB_CHUNK_BYTES);
    chunk[100] ^= 0xff;
    await kv.set(blobChunkKey(key, 1), chunk);
    await assert.rejects(
      store.get(key),
      (error) =>
        error instanceof BlobStoreError && /does not match its SHA-256/.test(error.message),
    );
  });

  await t.step("get detects a missing or truncated chunk", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const bytes = randomBytes(3 * KV_BLOB_CHUNK_BYTES);
    const key = await store.put("evidence", bytes);

    await kv.delete(blobChunkKey(key, 1));
    await assert.rejects(store.get(key), BlobStoreError);

    await kv.set(blobChunkKey(key, 1), bytes.slice(KV_BLOB_CHUNK_BYTES, 2 * KV_BLOB_CHUNK_BYTES));
    await kv.set(blobChunkKey(key, 2), bytes.slice(2 * KV_BLOB_CHUNK_BYTES, -1));
    await assert.rejects(store.get(key), BlobStoreError);
  });

  await t.step("a put re-stamps a stored blob whose stamp is older than an hour", async () => {
    using kv = await Deno.openKv(":memory:");
    let now = Date.parse("2026-11-01T12:00:00Z");
    const store = createKvBlobStore(kv, { now: () => now });
    const small = randomBytes(100);
    const large = randomBytes(2 * KV_BLOB_CHUNK_BYTES);
    const keys = [await store.put("evidence", small), await store.put("evidence", large)];
    const stamps = async () => (await store.list({ limit: 10 })).map((b) => b.storedAt);
    now += BLOB_RESTAMP_MS;
    await store.put("evidence", small);
    await store.putMany("evidence", [large]);
    assert.deepEqual(await stamps(), [now - BLOB_RESTAMP_MS, now - BLOB_RESTAMP_MS]);
    now += 1;
    await store.put("evidence", small);
    await store.putMany("evidence", [large]);
    assert.deepEqual(await stamps(), [now, now]);
    assert.equal(await store.delete(keys[0], { storedBefore: now }), false);
    assert.equal(await store.delete(keys[1], { storedBefore: now + 1 }), true);
  });

  await t.step("delete removes a blob's chunks with its meta record", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const key = await store.put("document", randomBytes(3 * 1024 * 1024 + 5));
    assert.equal(await countChunks(kv, key), 52);
    assert.equal(await store.delete(key), true);
    assert.equal(await countChunks(kv, key), 0);
    assert.equal((await kv.get(blobMetaKey(key))).versionstamp, null);
  });

  await t.step("delete removes a blob of more chunks than one atomic holds", async () => {
    using kv = await Deno.openKv(":memory:");
    const store = createKvBlobStore(kv);
    const key = await store.put("evidence", randomBytes(601 * KV_BLOB_CHUNK_BYTES));
    assert.equal(await countChunks(kv, key), 601);
    assert.equal(await store.delete(key), true);
    assert.equal(await countChunks(kv, key), 0);
    assert.equal(await store.has(key), false);
  });

  await t.step("delete loses to a put that re-stamped the blob after it was read", async () => {
    using kv = await Deno.openKv(":memory:");
    let now = Date.parse("2026-11-01T12:00:00Z");
    const store = createKvBlobStore(kv, { now: () => now });
    const bytes = randomBytes(100);
    const key = await store.put("artifact", bytes);
    now += 2 * BLOB_RESTAMP_MS;
    // The collector read the stamp as old; a writer re-stamps before its removal commits.
    const stale = await kv.get(blobMetaKey(key));
    await store.put("artifact", bytes);
    const removal = await kv.atomic().check(stale).delete(blobMetaKey(key)).commit();
    assert.equal(removal.ok, false);
    assert.equal(await store.delete(key, { storedBefore: now - BLOB_RESTAMP_MS }), false);
    assert.deepEqual(await store.get(key), bytes);
  });
});
