/**
 * Ed25519 signing keys held in KV: one signs built-in access tokens, one
 * signs publications, one signs the publication log's checkpoints, one signs
 * webhook deliveries (Standard Webhooks `v1a`). The public halves of the
 * publication, token and webhook keys are served at /.well-known/jwks.json,
 * the log's as a signed-note verifier key at /log.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from "jose";
import { ConfigError } from "../config.ts";
import { createSigningKeyOnce, getSigningKey } from "../store/signing_keys.ts";

export type KeyPurpose = "tokens" | "publications" | "log" | "webhooks";

export interface SigningKey {
  kid: string;
  alg: "EdDSA";
  privateKey: CryptoKey;
  publicJwk: { kty: string; crv: string; x: string; kid: string; alg: "EdDSA"; use: "sig" };
}

async function fromPrivateJwk(jwk: JWK): Promise<SigningKey> {
  const privateKey = await importJWK(jwk, "EdDSA") as CryptoKey;
  const kty = jwk.kty!, crv = jwk.crv!, x = jwk.x!;
  const kid = await calculateJwkThumbprint({ kty, crv, x });
  return {
    kid,
    alg: "EdDSA",
    privateKey,
    publicJwk: { kty, crv, x, kid, alg: "EdDSA", use: "sig" },
  };
}

function parseConfiguredKey(text: string, variable: string): JWK {
  let jwk: JWK;
  try {
    jwk = JSON.parse(text);
  } catch {
    throw new ConfigError(variable, "must be an Ed25519 private JWK in JSON");
  }
  if (jwk?.kty !== "OKP" || jwk.crv !== "Ed25519" || !jwk.d || !jwk.x) {
    throw new ConfigError(
      variable,
      "must be an Ed25519 private JWK (kty OKP, crv Ed25519, d, x)",
    );
  }
  return jwk;
}

/**
 * Loads the key for `purpose`: the configured JWK when given (from the
 * variable `variable`, SIGNING_KEY by default), else the one
 * kept in KV, generating and storing it on first use (the first writer wins
 * when several instances start at once).
 */
export async function loadSigningKey(
  kv: Deno.Kv,
  purpose: KeyPurpose,
  { configured, variable = "SIGNING_KEY" }: { configured?: string; variable?: string } = {},
): Promise<SigningKey> {
  if (configured) return await fromPrivateJwk(parseConfiguredKey(configured, variable));
  const stored = await getSigningKey(kv, purpose);
  if (stored) return await fromPrivateJwk(stored);
  const { privateKey } = await generateKeyPair("EdDSA", { extractable: true });
  const jwk = await exportJWK(privateKey);
  return await fromPrivateJwk(await createSigningKeyOnce(kv, { purpose, jwk }));
}
