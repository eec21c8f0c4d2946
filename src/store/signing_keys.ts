/**
 * The service's own Ed25519 signing keys (private JWKs), one per purpose.
 * A key is created once: when several instances start at once, the first
 * writer's key is the one every instance uses.
 */
import type { JWK } from "jose";
import { signingKeyKey } from "./keys.ts";

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
