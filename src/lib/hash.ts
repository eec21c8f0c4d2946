const encoder = new TextEncoder();

/**
 * Returns the lowercase hex SHA-256 digest of `input`, hashing strings as their UTF-8 bytes.
 * This is the one digest used for blob keys and for `sha256:<hex>` checksums of canonical
 * JSON, so both sides of every comparison are produced the same way.
 */
export async function sha256Hex(input: Uint8Array | string): Promise<string> {
  const bytes = typeof input === "string" ? encoder.encode(input) : input;
  const digest = await crypto.subtle.digest("SHA-256", unshared(bytes));
  return new Uint8Array(digest).toHex();
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
