import { type BlobKind, type BlobStore, BlobStoreError, putEach } from "../../src/blobs/mod.ts";

/** When {@linkcode createFaultyBlobStore} fails. */
export interface FaultyBlobStoreOptions {
  /** The 1-based number of the put that throws instead of storing; unset means never. */
  failOnPut?: number;
}

/**
 * Wraps `inner` so that its N-th put (1-based, counted across all kinds) throws a
 * BlobStoreError without reaching `inner`, as an unavailable bucket would; every other call
 * is passed through. Lets batch ingest and publish tests prove a failed blob write leaves
 * no KV record behind.
 */
export function createFaultyBlobStore(
  inner: BlobStore,
  options: FaultyBlobStoreOptions = {},
): BlobStore {
  let puts = 0;
  return {
    put(kind: BlobKind, bytes: Uint8Array): Promise<string> {
      puts++;
      if (puts === options.failOnPut) {
        return Promise.reject(new BlobStoreError(`Injected fault on put ${puts}`));
      }
      return inner.put(kind, bytes);
    },
    putMany(kind: BlobKind, items: readonly Uint8Array[]): Promise<string[]> {
      return putEach(this, kind, items);
    },
    get: (key) => inner.get(key),
    has: (key) => inner.has(key),
    stat: (key) => inner.stat(key),
    list: (options) => inner.list(options),
    delete: (key, options) => inner.delete(key, options),
  };
}
