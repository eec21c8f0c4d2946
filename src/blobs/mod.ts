/** What a blob holds; the first segment of its key. */
export type BlobKind = "evidence" | "artifact" | "logo" | "document";

/** Every {@linkcode BlobKind}, in a stable order. */
export const BLOB_KINDS: readonly BlobKind[] = ["evidence", "artifact", "logo", "document"];

/** Content-addressed byte storage for evidence payloads, published artifacts, logos and documents. */
export interface BlobStore {
  /** Stores bytes content-addressed under `<kind>/<sha256 hex of bytes>`; idempotent (identical bytes stored once); returns that key. */
  put(kind: BlobKind, bytes: Uint8Array): Promise<string>;
  /**
   * Stores several blobs and resolves with their keys in order. On failure some may already
   * be stored; that is harmless, because blobs are content-addressed and unreferenced until
   * the KV commit that follows.
   */
  putMany(kind: BlobKind, items: readonly Uint8Array[]): Promise<string[]>;
  /**
   * Offered only by a store kept in the application's own KV: adds the writes of `items`
   * (a store may skip those it knows are stored) to the caller's atomic `op`, while their
   * bytes stay within `budgetBytes`, so the
   * blobs commit together with the records that reference them. Resolves with, per item,
   * whether it is taken care of (staged or already stored); the rest must go through `putMany`
   * before `op` commits.
   */
  stageMany?(
    op: Deno.AtomicOperation,
    kind: BlobKind,
    items: readonly Uint8Array[],
    budgetBytes: number,
  ): Promise<boolean[]>;
  /** The bytes under a key, or null when absent. */
  get(key: string): Promise<Uint8Array | null>;
  has(key: string): Promise<boolean>;
  /** A stored blob's size and stamp, or null when absent. */
  stat(key: string): Promise<BlobInfo | null>;
  /**
   * A page of stored blobs in key order, starting after the key `after` (for the garbage
   * collector, which resumes from the last key it saw).
   */
  list(options: { after?: string; limit: number }): Promise<BlobInfo[]>;
  /**
   * Removes a blob; true when something was removed. With `storedBefore` (epoch ms) only a blob
   * last stored (or re-stamped) before that instant is removed: the collector's grace rule,
   * checked atomically with the removal on the KV store (see docs/lifecycle.md).
   */
  delete(key: string, options?: { storedBefore?: number }): Promise<boolean>;
}

/** A stored blob as listed: its key, size and when it was last stored or re-stamped. */
export interface BlobInfo {
  key: string;
  size: number;
  /** Epoch ms; 0 for a blob stored before stamps were kept (old enough for any grace). */
  storedAt: number;
}

/**
 * A put that finds its blob already stored re-stamps it when the stamp is older than this, so
 * a blob that a writer is about to reference again is never old in the collector's eyes: a
 * blob is collected only when its stamp is older than the grace (BLOB_GC_GRACE_MS), which
 * leaves a writer at least the difference between the two to commit its reference.
 */
export const BLOB_RESTAMP_MS = 60 * 60 * 1000;

/** Where the blob stores read the time (tests pass their fake clock). */
export type BlobClock = () => number;

/** A blob store failed, refused a malformed key, or found stored bytes that do not match their key. */
export class BlobStoreError extends Error {
  override name = "BlobStoreError";
}

/** The parts of a well-formed blob key. */
export interface ParsedBlobKey {
  kind: BlobKind;
  /** Lowercase hex SHA-256 of the blob's bytes. */
  sha256: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
const KEY_PREVIEW_LENGTH = 80;

/**
 * Builds the key `<kind>/<hex>` for a blob whose bytes hash to `hex` (lowercase SHA-256).
 * Throws a BlobStoreError for an unknown kind or a digest that is not 64 lowercase hex
 * digits, so a malformed key can never be produced, only rejected.
 */
export function blobKey(kind: BlobKind, hex: string): string {
  if (!isBlobKind(kind)) {
    throw new BlobStoreError(`Blob kind "${preview(kind)}" is not one of ${BLOB_KINDS.join(", ")}`);
  }
  if (!SHA256_HEX.test(hex)) {
    throw new BlobStoreError(`Blob digest "${preview(hex)}" is not 64 lowercase hex digits`);
  }
  return `${kind}/${hex}`;
}

/**
 * Validates a blob key and splits it into kind and digest. Keys are read back from stored
 * data and end up in KV keys and S3 URLs, so anything other than exactly `<kind>/<64
 * lowercase hex>` (no other separators, dots, case or padding) throws a BlobStoreError.
 */
export function parseBlobKey(key: string): ParsedBlobKey {
  const slash = key.indexOf("/");
  const kind = key.slice(0, slash);
  const sha256 = key.slice(slash + 1);
  if (slash < 0 || !isBlobKind(kind) || !SHA256_HEX.test(sha256)) {
    throw new BlobStoreError(`Blob key "${preview(key)}" is not "<kind>/<64 hex>"`);
  }
  return { kind, sha256 };
}

function isBlobKind(value: string): value is BlobKind {
  return (BLOB_KINDS as readonly string[]).includes(value);
}

// Keys may come from corrupted data; quoting them whole could flood logs.
function preview(text: string): string {
  return text.length > KEY_PREVIEW_LENGTH ? `${text.slice(0, KEY_PREVIEW_LENGTH)}…` : text;
}

/** `putMany` for stores without a batched write: one put after another. */
export async function putEach(
  store: Pick<BlobStore, "put">,
  kind: BlobKind,
  items: readonly Uint8Array[],
): Promise<string[]> {
  const keys: string[] = [];
  for (const bytes of items) keys.push(await store.put(kind, bytes));
  return keys;
}
