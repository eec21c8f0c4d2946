/**
 * Node's `crypto.verify(null, data, key, signature)` picks the key's default digest
 * (SHA-256 for EC and RSA keys, as OpenSSL 3 reports it); Deno 2.9's node:crypto throws
 * "no default digest" instead. The Sigstore libraries call it exactly that way for Rekor's
 * signed entry timestamps, checkpoints and DSSE signatures, and turn the throw into
 * `false`, so every valid bundle would read as unverifiable. This gives the call Node's
 * default once, for EC and RSA keys only; an explicit algorithm is never changed.
 */
import crypto from "node:crypto";

type Verify = typeof crypto.verify;
const PATCHED = Symbol.for("trust-profile.node-crypto-default-digest");

/** The KeyObject a `crypto.verify` key argument holds, when it holds one. */
function keyObjectOf(key: unknown): crypto.KeyObject | null {
  if (key instanceof crypto.KeyObject) return key;
  if (typeof key === "object" && key !== null && "key" in key) {
    const inner = (key as { key: unknown }).key;
    if (inner instanceof crypto.KeyObject) return inner;
  }
  return null;
}

/** Installs Node's default digest for `crypto.verify` with no algorithm; idempotent. */
export function useNodeDefaultDigest(): void {
  const holder = crypto as unknown as Record<PropertyKey, unknown>;
  if (holder[PATCHED]) return;
  const original = crypto.verify;
  const patched = function (this: unknown, algorithm, data, key, signature, callback?) {
    let digest = algorithm;
    if (digest === null || digest === undefined) {
      const type = keyObjectOf(key)?.asymmetricKeyType;
      if (type === "ec" || type === "rsa") digest = "sha256";
    }
    // deno-lint-ignore no-explicit-any
    return (original as any).call(this, digest, data, key, signature, callback);
  } as Verify;
  holder.verify = patched;
  holder[PATCHED] = true;
}
