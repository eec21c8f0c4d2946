/**
 * Publication signatures: a compact JWS (EdDSA) whose payload is exactly
 * the bytes of trust.json, so anyone with /.well-known/jwks.json can check
 * that the document they hold is the one the service published.
 */
import { CompactSign } from "jose";
import type { SigningKey } from "../auth/keys.ts";

/** Media type of the JWS payload, named in the protected header's `cty`. */
export const TRUST_JSON_CTY = "application/json";

/**
 * Signs `trustJson`. The protected header carries the key id, the version
 * (`ver`) and the digest of the previous version's trust.json (`prev`, null
 * for version 1), chaining every version to the one before.
 */
export async function signTrustJson(
  key: SigningKey,
  trustJson: Uint8Array,
  chain: { version: number; previousDigest: string | null },
): Promise<string> {
  return await new CompactSign(trustJson)
    .setProtectedHeader({
      alg: "EdDSA",
      kid: key.kid,
      typ: "JOSE",
      cty: TRUST_JSON_CTY,
      ver: chain.version,
      prev: chain.previousDigest,
    })
    .sign(key.privateKey);
}

/**
 * Signs an export of a version (OSCAL, Security Insights) the way trust.json is signed: a
 * compact JWS over its exact bytes, with the key id, the media type (`cty`) and the version.
 */
export async function signDocument(
  key: SigningKey,
  bytes: Uint8Array,
  options: { version: number; cty: string },
): Promise<string> {
  return await new CompactSign(bytes)
    .setProtectedHeader({
      alg: "EdDSA",
      kid: key.kid,
      typ: "JOSE",
      cty: options.cty,
      ver: options.version,
    })
    .sign(key.privateKey);
}
