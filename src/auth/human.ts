/**
 * Verification of human bearer tokens (JWT access tokens) in both modes of
 * DESIGN.md §6, and the mapping from a verified token to a user record.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors as joseErrors,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
} from "jose";
import { unauthorized } from "../domain/errors.ts";
import type { Clock } from "../lib/clock.ts";
import { getRefreshFamily } from "../store/oauth_grants.ts";
import type { SigningKey } from "./keys.ts";

/** Asymmetric algorithms accepted from an external identity provider; never `none` or HMAC. */
export const OIDC_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
];

/** Seconds of clock skew tolerated on `exp`, `nbf` and `iat`. */
export const CLOCK_TOLERANCE_SECONDS = 30;

export interface HumanIdentity {
  sub: string;
  email: string;
  name: string;
}

export interface AccessTokenVerifier {
  /** The verified payload; throws an `unauthorized` AppError for any bad token. */
  verify(token: string): Promise<JWTPayload>;
  /** The email and name of the token's subject (from claims, else the IdP's userinfo). */
  identify(token: string, payload: JWTPayload): Promise<HumanIdentity>;
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return "The access token has expired";
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return `The access token's "${error.claim}" claim is not accepted`;
  }
  if (error instanceof joseErrors.JOSEAlgNotAllowed) {
    return "The access token's signing algorithm is not accepted";
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return "The access token's signature is invalid";
  }
  if (error instanceof joseErrors.JWKSNoMatchingKey) {
    return "The access token was not signed by a known key";
  }
  return "The access token is malformed or cannot be verified";
}

/** A compact JWS has three base64url parts; anything else is not worth parsing. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

async function verifyWith(
  token: string,
  keys: JWTVerifyGetKey,
  options: { issuer: string; audience: string; algorithms: string[]; clock: Clock; typ?: string },
): Promise<JWTPayload> {
  if (token.length > 16384 || !JWT_SHAPE.test(token)) {
    throw unauthorized("The access token is malformed");
  }
  try {
    const { payload } = await jwtVerify(token, keys, {
      issuer: options.issuer,
      audience: options.audience,
      algorithms: options.algorithms,
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      currentDate: options.clock.now(),
      requiredClaims: ["exp", "sub"],
      typ: options.typ,
    });
    return payload;
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw unauthorized(describe(error));
    throw error;
  }
}

function identityFromClaims(payload: JWTPayload): Partial<HumanIdentity> {
  const email = typeof payload.email === "string" ? payload.email : undefined;
  const name = [payload.name, payload.preferred_username, email]
    .find((v): v is string => typeof v === "string" && v.length > 0);
  return { sub: payload.sub, email, name };
}

/**
 * Verifies tokens issued by the service's own identity provider. Each carries the id of the
 * sign-in session it was issued from (`sid`: the refresh-token family), read on every
 * verification (one KV read, not cached): a session ended by a reused code or refresh token,
 * or by revocation, stops its access tokens at once, not when they expire.
 */
export function createBuiltinVerifier(options: {
  issuer: string;
  audience: string;
  key: SigningKey;
  clock: Clock;
  kv: Deno.Kv;
}): AccessTokenVerifier {
  const keys = createLocalJWKSet({ keys: [options.key.publicJwk] });
  return {
    verify: async (token) => {
      const payload = await verifyWith(token, keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ["EdDSA"],
        clock: options.clock,
        typ: "at+jwt",
      });
      if (payload.token_use === "collector") {
        throw unauthorized("A human access token is required");
      }
      if (typeof payload.sid !== "string" || payload.sid.length === 0) {
        throw unauthorized("The access token names no sign-in session");
      }
      const session = await getRefreshFamily(options.kv, payload.sid);
      if (!session || session.accountId !== payload.sub) {
        throw unauthorized("The access token's sign-in session has ended");
      }
      return payload;
    },
    identify: (_token, payload) => {
      const id = identityFromClaims(payload);
      if (!id.email) throw unauthorized("The access token carries no email");
      return Promise.resolve({ sub: payload.sub!, email: id.email, name: id.name ?? id.email });
    },
  };
}

interface Discovery {
  jwks_uri?: string;
  userinfo_endpoint?: string;
}

/**
 * Verifies tokens from an external OpenID provider: signature against the
 * issuer's JWKS (from AUTH_JWKS_URL or discovery), issuer, audience, expiry
 * and an asymmetric algorithm allow-list. Userinfo answers are cached per subject.
 */
export function createOidcVerifier(options: {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  clock: Clock;
  fetch?: typeof fetch;
}): AccessTokenVerifier {
  const doFetch = options.fetch ?? fetch;
  let discovery: Promise<Discovery> | undefined;
  const discover = () => {
    discovery ??= (async () => {
      for (
        const path of [
          "/.well-known/openid-configuration",
          "/.well-known/oauth-authorization-server",
        ]
      ) {
        const res = await doFetch(options.issuer + path, { signal: AbortSignal.timeout(5000) });
        if (res.ok) return await res.json() as Discovery;
        await res.body?.cancel();
      }
      throw new Error("The identity provider publishes no discovery document");
    })().catch((error) => {
      discovery = undefined;
      throw error;
    });
    return discovery;
  };
  let jwks: JWTVerifyGetKey | undefined;
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (!jwks) {
      const url = options.jwksUrl ?? (await discover()).jwks_uri;
      if (!url) throw new Error("The identity provider's discovery document has no jwks_uri");
      jwks = createRemoteJWKSet(new URL(url), {
        [customFetch]: (input: string | URL | Request, init?: RequestInit) => doFetch(input, init),
      });
    }
    return await jwks(header, token);
  };
  // Userinfo answers by subject, oldest first: at most USERINFO_ENTRIES, so the map does not
  // grow with every subject that ever signed in without an email claim.
  const userinfo = new Map<string, { email?: string; name?: string; at: number }>();
  const USERINFO_TTL_MS = 10 * 60 * 1000;
  const USERINFO_ENTRIES = 10_000;

  return {
    verify: (token) =>
      verifyWith(token, getKey, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: OIDC_ALGORITHMS,
        clock: options.clock,
      }),
    async identify(token, payload) {
      const sub = payload.sub!;
      let { email, name } = identityFromClaims(payload);
      if (!email) {
        const cached = userinfo.get(sub);
        const now = options.clock.now().getTime();
        let info = cached && now - cached.at < USERINFO_TTL_MS ? cached : undefined;
        if (!info) {
          info = { at: now };
          const endpoint = (await discover().catch(() => ({} as Discovery))).userinfo_endpoint;
          if (endpoint) {
            const res = await doFetch(endpoint, {
              headers: { authorization: `Bearer ${token}` },
              signal: AbortSignal.timeout(5000),
            }).catch(() => null);
            if (res?.ok) {
              const body = await res.json().catch(() => ({}));
              info = { ...identityFromClaims({ ...body, sub }), at: now };
            } else await res?.body?.cancel();
          }
          userinfo.delete(sub);
          if (userinfo.size >= USERINFO_ENTRIES) userinfo.delete(userinfo.keys().next().value!);
          userinfo.set(sub, info);
        }
        email = info.email;
        name ??= info.name;
      }
      if (!email) {
        throw unauthorized(
          "The access token carries no email claim and the identity provider's userinfo gave none",
        );
      }
      return { sub, email, name: name ?? email };
    },
  };
}
