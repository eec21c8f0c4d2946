/**
 * RFC 9068 JWT access tokens issued by the built-in identity provider.
 */
import { SignJWT } from "jose";
import type { SigningKey } from "../keys.ts";

/** Lifetime of a human access token; refresh tokens keep sessions going. */
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;
export const AUTHORIZATION_CODE_TTL_MS = 60 * 1000;

export interface AccessTokenClaims {
  sub: string;
  clientId: string;
  scope: string;
  /** Extra claims: `email` and `name` for humans, `token_use` for collectors. */
  extra?: Record<string, unknown>;
}

/** Signs an access token (`typ: at+jwt`) for `audience`, valid from `now` for `ttlSeconds`. */
export async function signAccessToken(
  key: SigningKey,
  options: { issuer: string; audience: string; now: Date; ttlSeconds: number },
  claims: AccessTokenClaims,
): Promise<string> {
  const iat = Math.floor(options.now.getTime() / 1000);
  return await new SignJWT({
    ...claims.extra,
    client_id: claims.clientId,
    scope: claims.scope,
  })
    .setProtectedHeader({ alg: "EdDSA", kid: key.kid, typ: "at+jwt" })
    .setIssuer(options.issuer)
    .setAudience(options.audience)
    .setSubject(claims.sub)
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttlSeconds)
    .setJti(crypto.randomUUID())
    .sign(key.privateKey);
}
