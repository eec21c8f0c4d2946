/**
 * Password hashing with PBKDF2-SHA-256 through WebCrypto. The encoded hash
 * carries its own iteration count, so the default can rise without a migration.
 */
import { decodeBase64Url, encodeBase64Url } from "../lib/encoding.ts";

/** OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
export const PBKDF2_ITERATIONS = 600_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
/** Longest password accepted; longer inputs only cost CPU. */
export const MAX_PASSWORD_LENGTH = 512;
export const MIN_PASSWORD_LENGTH = 10;

async function derive(password: string, salt: Uint8Array, iterations: number) {
  const material = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    material,
    HASH_BITS,
  );
  return new Uint8Array(bits);
}

/** Returns `pbkdf2-sha256$<iterations>$<salt>$<hash>` (base64url parts). */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${encodeBase64Url(salt)}$${encodeBase64Url(hash)}`;
}

/** Constant-time comparison of two byte strings of possibly different lengths. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const [scheme, iterations, salt, hash] = encoded.split("$");
  if (scheme !== "pbkdf2-sha256" || !iterations || !salt || !hash) return false;
  const actual = await derive(password, decodeBase64Url(salt), Number(iterations));
  return timingSafeEqual(actual, decodeBase64Url(hash));
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random password, checked when an account does not exist so the
 * response time does not reveal which emails have accounts.
 */
export function dummyPasswordHash(): Promise<string> {
  return dummy ??= hashPassword(crypto.randomUUID());
}
