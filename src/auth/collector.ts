/**
 * Collector credentials: `tpc_` secrets (stored as SHA-256 only) and the
 * short-lived access tokens the built-in provider issues for them through
 * the client_credentials grant.
 */
import { createLocalJWKSet, errors as joseErrors, jwtVerify } from "jose";
import type { Config } from "../config.ts";
import { unauthorized } from "../domain/errors.ts";
import type { Clock } from "../lib/clock.ts";
import { randomToken } from "../lib/encoding.ts";
import { sha256Hex } from "../lib/hash.ts";
import { type Collector, getCollector, getCollectorBySecretHash } from "../store/collectors.ts";
import { CLOCK_TOLERANCE_SECONDS } from "./human.ts";
import type { SigningKey } from "./keys.ts";

export const COLLECTOR_SECRET_PREFIX = "tpc_";
export const COLLECTOR_TOKEN_TTL_SECONDS = 15 * 60;

/** A new secret (`tpc_` + 32 random bytes, base64url), its display prefix and its hash. */
export async function newCollectorSecret() {
  const value = `${COLLECTOR_SECRET_PREFIX}${randomToken(32)}`;
  return { value, prefix: value.slice(0, 12), hash: await sha256Hex(value) };
}

const SECRET_SHAPE = /^tpc_[A-Za-z0-9_-]{43}$/;

/** The active collector holding `secret`, or null (unknown, rotated away or revoked). */
export async function collectorForSecret(kv: Deno.Kv, secret: string): Promise<Collector | null> {
  if (!SECRET_SHAPE.test(secret)) return null;
  const collector = await getCollectorBySecretHash(kv, await sha256Hex(secret));
  return collector?.status === "active" ? collector : null;
}

/**
 * The collector a bearer credential stands for: a secret, or (built-in
 * mode) a collector access token. Throws `unauthorized` otherwise, including
 * for human tokens and revoked collectors.
 */
export async function authenticateCollector(
  deps: { kv: Deno.Kv; config: Config; clock: Clock; tokenKey: SigningKey },
  credential: string,
): Promise<Collector> {
  if (credential.startsWith(COLLECTOR_SECRET_PREFIX)) {
    const collector = await collectorForSecret(deps.kv, credential);
    if (!collector) throw unauthorized("The collector secret is not valid");
    return collector;
  }
  if (deps.config.auth.mode !== "builtin") throw unauthorized("A collector secret is required");
  let sub: string | undefined;
  try {
    const { payload } = await jwtVerify(
      credential,
      createLocalJWKSet({ keys: [deps.tokenKey.publicJwk] }),
      {
        issuer: deps.config.auth.issuer,
        audience: deps.config.auth.audience,
        algorithms: ["EdDSA"],
        typ: "at+jwt",
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: deps.clock.now(),
        requiredClaims: ["exp", "sub"],
      },
    );
    if (payload.token_use !== "collector") throw unauthorized("A collector credential is required");
    sub = payload.sub;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) {
      throw unauthorized("The collector token is not valid");
    }
    throw error;
  }
  const collector = sub ? await getCollector(deps.kv, sub) : null;
  if (!collector || collector.status !== "active") {
    throw unauthorized("The collector is revoked or unknown");
  }
  return collector;
}
