/**
 * Collector credentials: `tpc_` secrets (stored as SHA-256 only) and the
 * short-lived access tokens the built-in provider issues for them through
 * the client_credentials grant.
 */
import { createLocalJWKSet, errors as joseErrors, jwtVerify } from "jose";
import type { Config } from "../config.ts";
import type { Collector } from "../domain/collector.ts";
import { unauthorized } from "../domain/errors.ts";
import type { Clock } from "../lib/clock.ts";
import { randomToken } from "../lib/encoding.ts";
import { sha256Hex } from "../lib/hash.ts";
import { getCollector, getCollectorBySecretHash } from "../store/collectors.ts";
import { signAccessToken } from "./builtin/tokens.ts";
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
 * What binds a collector token to the secret it was minted from: a digest of
 * the stored secret hash (never the hash itself). Rotation replaces the hash,
 * so every token of the old secret stops matching at once.
 */
async function secretBinding(secretHash: string): Promise<string> {
  return (await sha256Hex(`collector-token:${secretHash}`)).slice(0, 32);
}

/**
 * A client_credentials access token for `collector`, limited to `scope`
 * (a subset of its allowed actions) and bound to its current secret.
 */
export async function issueCollectorToken(
  deps: { config: Config; tokenKey: SigningKey; now: Date },
  grant: { collector: Collector; scope: string[] },
): Promise<string> {
  const { collector, scope } = grant;
  return await signAccessToken(deps.tokenKey, {
    issuer: deps.config.auth.issuer,
    audience: deps.config.auth.audience,
    now: deps.now,
    ttlSeconds: COLLECTOR_TOKEN_TTL_SECONDS,
  }, {
    sub: collector.id,
    clientId: collector.id,
    scope: scope.join(" "),
    extra: { token_use: "collector", sb: await secretBinding(collector.secretHash) },
  });
}

/**
 * The collector a bearer credential stands for: a secret, or (built-in
 * mode) a collector access token. Throws `unauthorized` otherwise, including
 * for human tokens, revoked collectors and tokens of a rotated secret. A
 * token acts only within the scope it was granted.
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
  let claims: { sub?: string; sb?: unknown; scope?: unknown };
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
    claims = payload;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) {
      throw unauthorized("The collector token is not valid");
    }
    throw error;
  }
  const collector = claims.sub ? await getCollector(deps.kv, claims.sub) : null;
  if (!collector || collector.status !== "active") {
    throw unauthorized("The collector is revoked or unknown");
  }
  if (claims.sb !== await secretBinding(collector.secretHash)) {
    throw unauthorized("The collector token was issued for a secret that has been rotated");
  }
  const granted = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
  return {
    ...collector,
    allowedActions: collector.allowedActions.filter((action) => granted.includes(action)),
  };
}
