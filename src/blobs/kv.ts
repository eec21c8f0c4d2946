import { sha256Hex, sha256HexSync } from "../lib/hash.ts";
import { blobChunkKey, blobMetaKey } from "../store/keys.ts";
import {
  BLOB_RESTAMP_MS,
  type BlobClock,
  type BlobInfo,
  blobKey,
  type BlobKind,
  type BlobStore,
  BlobStoreError,
  parseBlobKey,
} from "./mod.ts";

/** What `blobMetaKey(key)` holds once every chunk of the blob is written. */
export interface KvBlobMeta {
  size: number;
  chunks: number;
  sha256: string;
  /** The bytes themselves for blobs of at most KV_BLOB_INLINE_BYTES (then `chunks` is 0). */
  inline?: Uint8Array;
  /** When it was last stored or re-stamped (epoch ms); absent on blobs stored before stamps. */
  storedAt?: number;
}

/** Blobs up to this size live inside their meta record: one KV write instead of two. */
export const KV_BLOB_INLINE_BYTES = 32 * 1024;

/** Largest chunk value; KV values are capped at 64 KiB. */
export const KV_BLOB_CHUNK_BYTES = 60 * 1024;
// 12 chunks (720 KiB) keep each atomic under KV's 800 KiB limit with room for the keys.
const CHUNKS_PER_ATOMIC = 12;
// Small blobs written together share atomics up to this many bytes and mutations.
const PACK_BYTES = 700 * 1024;
const PACK_MUTATIONS = 900;
// A blob with at most this many chunks is removed with its meta record in one atomic (each
// chunk key is about 100 bytes; an atomic holds at most 80 KiB of keys).
const CHUNKS_PER_DELETE = 600;

/**
 * A BlobStore on Deno KV for deployments without object storage. Bytes are split into
 * chunks of at most 60 KiB written over several atomics, then the metadata record is written
 * last, so a crash mid-put leaves only invisible chunks that the next put of the same bytes
 * overwrites. Reads check the SHA-256 of the reassembled bytes against the key. Each meta
 * record carries when it was stored (`now`, default the system clock); a put that finds its
 * blob stored re-stamps a stamp older than BLOB_RESTAMP_MS, with a check, so a collector that
 * removes the blob meanwhile makes the put store it again.
 */
export function createKvBlobStore(kv: Deno.Kv, options: { now?: BlobClock } = {}): BlobStore {
  const now = options.now ?? Date.now;
  /** The meta entries of `keys` that are stored (complete), by key. */
  const presentEntries = async (
    keys: readonly string[],
  ): Promise<Map<string, Deno.KvEntry<KvBlobMeta>>> => {
    const present = new Map<string, Deno.KvEntry<KvBlobMeta>>();
    const groups = [];
    for (let i = 0; i < keys.length; i += 10) groups.push(keys.slice(i, i + 10));
    const results = await Promise.all(
      groups.map((g) => kv.getMany<KvBlobMeta[]>(g.map((k) => blobMetaKey(k)))),
    );
    results.flat().forEach((m, i) => {
      if (m.versionstamp !== null) present.set(keys[i], m as Deno.KvEntry<KvBlobMeta>);
    });
    return present;
  };
  /**
   * Whether the stored blob of `entry` stays stored for a writer about to reference it: a
   * fresh stamp is left alone, a stale one is renewed unless the blob was removed meanwhile.
   */
  const keepStored = async (entry: Deno.KvEntry<KvBlobMeta>): Promise<boolean> => {
    if ((entry.value.storedAt ?? 0) >= now() - BLOB_RESTAMP_MS) return true;
    const restamped = { ...entry.value, storedAt: now() };
    return (await kv.atomic().check(entry).set(entry.key, restamped).commit()).ok;
  };
  /** Adds a blob of at most one chunk, chunk and meta, to `op`. */
  const stageSmall = (op: Deno.AtomicOperation, key: string, bytes: Uint8Array) => {
    const sha256 = key.slice(key.indexOf("/") + 1);
    const storedAt = now();
    if (bytes.length <= KV_BLOB_INLINE_BYTES) {
      const meta: KvBlobMeta = { size: bytes.length, chunks: 0, sha256, inline: bytes, storedAt };
      return op.set(blobMetaKey(key), meta);
    }
    op.set(blobChunkKey(key, 0), bytes);
    return op.set(blobMetaKey(key), { size: bytes.length, chunks: 1, sha256, storedAt });
  };

  const store: BlobStore = {
    async put(kind: BlobKind, bytes: Uint8Array): Promise<string> {
      const sha256 = await sha256Hex(bytes);
      const key = blobKey(kind, sha256);
      const metaKey = blobMetaKey(key);
      const stored = await kv.get<KvBlobMeta>(metaKey);
      if (stored.versionstamp !== null && await keepStored(stored)) return key;
      if (bytes.length <= KV_BLOB_INLINE_BYTES) {
        await stageSmall(kv.atomic().check({ key: metaKey, versionstamp: null }), key, bytes)
          .commit();
        return key;
      }

      const chunks = Math.ceil(bytes.length / KV_BLOB_CHUNK_BYTES);
      for (let first = 0; first < chunks; first += CHUNKS_PER_ATOMIC) {
        const op = kv.atomic();
        for (let i = first; i < Math.min(first + CHUNKS_PER_ATOMIC, chunks); i++) {
          const start = i * KV_BLOB_CHUNK_BYTES;
          op.set(blobChunkKey(key, i), bytes.subarray(start, start + KV_BLOB_CHUNK_BYTES));
        }
        await op.commit();
      }
      const meta: KvBlobMeta = { size: bytes.length, chunks, sha256, storedAt: now() };
      // A failed check means a concurrent put of the same bytes finished first: same content.
      await kv.atomic().check({ key: metaKey, versionstamp: null }).set(metaKey, meta).commit();
      return key;
    },

    /**
     * Blobs of one chunk that are not yet stored are packed, chunk and meta together, into as
     * few atomics as the KV limits allow (a batch of small evidence is one commit); larger
     * blobs go through `put`. Writing the same content twice is harmless, so no check is needed.
     */
    async putMany(kind: BlobKind, items: readonly Uint8Array[]): Promise<string[]> {
      const keys = items.map((bytes) => blobKey(kind, sha256HexSync(bytes)));
      const small = new Map<string, Uint8Array>();
      for (let i = 0; i < items.length; i++) {
        if (items[i].length <= KV_BLOB_CHUNK_BYTES) small.set(keys[i], items[i]);
      }
      const present = await presentEntries([...small.keys()]);
      for (const [key, entry] of present) if (!await keepStored(entry)) present.delete(key);
      let op = kv.atomic();
      let bytesInOp = 0;
      let mutations = 0;
      for (const [key, bytes] of small) {
        if (present.has(key)) continue;
        if (bytesInOp + bytes.length > PACK_BYTES || mutations + 2 > PACK_MUTATIONS) {
          await op.commit();
          op = kv.atomic();
          bytesInOp = mutations = 0;
        }
        stageSmall(op, key, bytes);
        bytesInOp += bytes.length + 200;
        mutations += 2;
      }
      if (mutations > 0) await op.commit();
      for (let i = 0; i < items.length; i++) {
        if (!small.has(keys[i])) await store.put(kind, items[i]);
      }
      return keys;
    },

    async stageMany(
      op: Deno.AtomicOperation,
      kind: BlobKind,
      items: readonly Uint8Array[],
      budgetBytes: number,
    ): Promise<boolean[]> {
      const keys = items.map((bytes) => blobKey(kind, sha256HexSync(bytes)));
      // Rewriting identical inline bytes costs less than looking them up first; only blobs
      // with a chunk of their own are looked up.
      const present = await presentEntries(
        keys.filter((_, i) => items[i].length > KV_BLOB_INLINE_BYTES),
      );
      for (const [key, entry] of present) if (!await keepStored(entry)) present.delete(key);
      const staged = new Set<string>();
      let budget = budgetBytes;
      return items.map((bytes, i) => {
        const key = keys[i];
        if (present.has(key) || staged.has(key)) return true;
        if (bytes.length > KV_BLOB_CHUNK_BYTES || bytes.length + 200 > budget) return false;
        stageSmall(op, key, bytes);
        staged.add(key);
        budget -= bytes.length + 200;
        return true;
      });
    },

    async get(key: string): Promise<Uint8Array | null> {
      const { sha256 } = parseBlobKey(key);
      const meta = (await kv.get<KvBlobMeta>(blobMetaKey(key))).value;
      if (meta === null) return null;
      if (meta.inline) {
        if (meta.inline.length !== meta.size || sha256HexSync(meta.inline) !== sha256) {
          throw new BlobStoreError(`Blob "${key}" does not match its SHA-256`);
        }
        return meta.inline;
      }

      const bytes = new Uint8Array(meta.size);
      let offset = 0;
      let expected = 0;
      const entries = kv.list<Uint8Array>({
        start: blobChunkKey(key, 0),
        end: blobChunkKey(key, meta.chunks),
      });
      for await (const entry of entries) {
        const index = entry.key[entry.key.length - 1];
        if (index !== expected || offset + entry.value.length > meta.size) {
          throw new BlobStoreError(`Blob "${key}" has a missing or oversized chunk ${expected}`);
        }
        bytes.set(entry.value, offset);
        offset += entry.value.length;
        expected++;
      }
      if (expected !== meta.chunks || offset !== meta.size) {
        throw new BlobStoreError(
          `Blob "${key}" has ${expected} of ${meta.chunks} chunks and ${offset} of ${meta.size} bytes`,
        );
      }
      if (await sha256Hex(bytes) !== sha256) {
        throw new BlobStoreError(`Blob "${key}" does not match its SHA-256`);
      }
      return bytes;
    },

    async has(key: string): Promise<boolean> {
      parseBlobKey(key);
      return (await kv.get(blobMetaKey(key))).versionstamp !== null;
    },

    async stat(key: string): Promise<BlobInfo | null> {
      parseBlobKey(key);
      const meta = (await kv.get<KvBlobMeta>(blobMetaKey(key))).value;
      return meta && { key, size: meta.size, storedAt: meta.storedAt ?? 0 };
    },

    async list({ after, limit }): Promise<BlobInfo[]> {
      const prefix = blobMetaKey("").slice(0, 1);
      const selector = after === undefined ? { prefix } : { prefix, start: blobMetaKey(after) };
      const out: BlobInfo[] = [];
      for await (const entry of kv.list<KvBlobMeta>(selector, { limit: limit + 1 })) {
        const key = entry.key[1] as string;
        if (key === after) continue;
        if (out.length === limit) break;
        out.push({ key, size: entry.value.size, storedAt: entry.value.storedAt ?? 0 });
      }
      return out;
    },

    /**
     * Removes the meta record (checked against the one read, so a put that re-stamped or
     * rewrote it meanwhile wins) and the chunks in the same atomic; a blob of more chunks than
     * one atomic takes loses its meta record first (it is then invisible) and its chunks after.
     */
    async delete(key: string, options: { storedBefore?: number } = {}): Promise<boolean> {
      parseBlobKey(key);
      const entry = await kv.get<KvBlobMeta>(blobMetaKey(key));
      if (entry.value === null) return false;
      const storedAt = entry.value.storedAt ?? 0;
      if (options.storedBefore !== undefined && storedAt >= options.storedBefore) return false;
      const chunks = entry.value.chunks;
      const op = kv.atomic().check(entry).delete(entry.key);
      const together = chunks <= CHUNKS_PER_DELETE;
      if (together) { for (let i = 0; i < chunks; i++) op.delete(blobChunkKey(key, i)); }
      if (!(await op.commit()).ok) return false;
      for (let first = 0; !together && first < chunks; first += CHUNKS_PER_DELETE) {
        const rest = kv.atomic();
        const last = Math.min(first + CHUNKS_PER_DELETE, chunks);
        for (let i = first; i < last; i++) rest.delete(blobChunkKey(key, i));
        await rest.commit();
      }
      return true;
    },
  };
  return store;
}
