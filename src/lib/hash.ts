import { createHash } from "node:crypto";

/**
 * Returns the lowercase hex SHA-256 digest of `input`, hashing strings as their UTF-8 bytes.
 * This is the one digest used for blob keys and for `sha256:<hex>` checksums of canonical
 * JSON, so both sides of every comparison are produced the same way. It hashes synchronously
 * (node:crypto): on ingest's hot path that is several times faster than WebCrypto's
 * promise per digest.
 */
export function sha256HexSync(input: Uint8Array | string): string {
  return createHash("sha256").update(input).digest("hex");
}

/** `sha256HexSync` for callers written against a promise. */
export function sha256Hex(input: Uint8Array | string): Promise<string> {
  return Promise.resolve(sha256HexSync(input));
}

/**
 * Returns `bytes` as a view over a plain ArrayBuffer, which WebCrypto and fetch bodies
 * require; only views over a SharedArrayBuffer are copied, so the common case costs nothing.
 */
export function unshared(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return isOverArrayBuffer(bytes) ? bytes : new Uint8Array(bytes);
}

function isOverArrayBuffer(bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer;
}
