/**
 * The service's own Ed25519 signing keys (private JWKs), one per purpose.
 * A key is created once: when several instances start at once, the first
 * writer's key is the one every instance uses.
 */
import type { JWK } from "jose";
import { signingKeyKey, signingPublicKeyKey, signingPublicKeysPrefix } from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";

/** The stored private JWK for `purpose`, or null before one was created. */
export async function getSigningKey(kv: Deno.Kv, purpose: string): Promise<JWK | null> {
  return (await kv.get<JWK>(signingKeyKey(purpose))).value;
}

/**
 * Stores `jwk` as the key for `purpose` unless one exists, and returns the
 * key that is stored afterwards: `jwk`, or the one another instance wrote
 * first.
 */
export async function createSigningKeyOnce(
  kv: Deno.Kv,
  { purpose, jwk }: { purpose: string; jwk: JWK },
): Promise<JWK> {
  const key = signingKeyKey(purpose);
  const res = await kv.atomic().check({ key, versionstamp: null }).set(key, jwk).commit();
  if (res.ok) return jwk;
  return (await kv.get<JWK>(key)).value!;
}

/** A public key as the JWKS serves it, with the time it was first seen in use. */
export interface KnownPublicKey<K extends { kid: string } = { kid: string }> {
  jwk: K;
  firstUsedAt: string;
}

/**
 * Records that `jwk` signs for `purpose` (once; later calls keep the first
 * time), so the key stays published after it is rotated away.
 */
export async function rememberPublicKey<K extends { kid: string }>(
  kv: Deno.Kv,
  purpose: string,
  options: { jwk: K; now: Date },
): Promise<void> {
  const key = signingPublicKeyKey(purpose, options.jwk.kid);
  await kv.atomic().check({ key, versionstamp: null })
    .set(key, { jwk: options.jwk, firstUsedAt: options.now.toISOString() })
    .commit();
}

/** Every public key that has signed for `purpose`, oldest first. */
export async function listPublicKeys<K extends { kid: string }>(
  kv: Deno.Kv,
  purpose: string,
): Promise<KnownPublicKey<K>[]> {
  const keys: KnownPublicKey<K>[] = [];
  for await (
    const entry of kv.list<KnownPublicKey<K>>({ prefix: signingPublicKeysPrefix(purpose) })
  ) keys.push(entry.value);
  return keys.sort((a, b) => compareCodePoints(a.firstUsedAt, b.firstUsedAt));
}
