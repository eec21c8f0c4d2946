/**
 * Service metadata: liveness, signing keys, and OAuth 2.0 authorization
 * server metadata (RFC 8414).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { SigningKey } from "../../auth/keys.ts";
import { HealthStatus } from "../../domain/common.ts";
import { listPublicKeys } from "../../store/signing_keys.ts";
import type { Services } from "../env.ts";
import { createRouter } from "../env.ts";
import { memoKey } from "../memo.ts";
import { json } from "../openapi.ts";

export const wellKnownRoutes = createRouter();

const Jwks = z.object({
  keys: z.array(z.object({
    kty: z.string(),
    crv: z.string(),
    x: z.string(),
    kid: z.string(),
    alg: z.string(),
    use: z.string(),
  })),
}).openapi("JsonWebKeySet");

const AuthorizationServerMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string().optional(),
  jwks_uri: z.string().optional(),
  response_types_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()).optional(),
  code_challenge_methods_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  scopes_supported: z.array(z.string()).optional(),
}).passthrough().openapi("AuthorizationServerMetadata");

wellKnownRoutes.openapi(
  createRoute({
    method: "get",
    path: "/health",
    operationId: "health",
    tags: ["Service"],
    summary: "Liveness probe",
    responses: { 200: json(HealthStatus, "The service is up") },
  }),
  (c) => c.json({ status: "ok" as const }, 200),
);

wellKnownRoutes.openapi(
  createRoute({
    method: "get",
    path: "/.well-known/jwks.json",
    operationId: "getJwks",
    tags: ["Service"],
    summary:
      "Public keys for publication signatures (current and earlier), built-in access tokens and webhook signatures",
    description:
      "Each key is an Ed25519 JWK with `use: sig`. The webhook key verifies Standard Webhooks `v1a` signatures; deliveries name its `kid` in the `webhook-key-id` header.",
    responses: { 200: json(Jwks, "A JSON Web Key Set (Ed25519)") },
  }),
  async (c) => {
    const { keys, config, kv } = c.var.services;
    // The key in use first, then every earlier publication key (old versions name them by kid).
    const earlier = (await listPublicKeys<SigningKey["publicJwk"]>(kv, "publications"))
      .map((known) => known.jwk).filter((jwk) => jwk.kid !== keys.publications.kid);
    const published = [keys.publications.publicJwk, ...earlier.reverse()];
    if (config.auth.mode === "builtin") published.push(keys.tokens.publicJwk);
    published.push(keys.webhooks.publicJwk);
    c.header("Cache-Control", "public, max-age=300");
    return c.json({ keys: published }, 200);
  },
);

/** RFC 8414 metadata for the built-in provider, built from configuration. */
export function builtinMetadata(services: Services) {
  const { config } = services;
  const base = config.auth.authUrl;
  return {
    issuer: config.auth.issuer,
    authorization_endpoint: `${base}/oauth2/authorize`,
    token_endpoint: `${base}/oauth2/token`,
    revocation_endpoint: `${base}/oauth2/revoke`,
    revocation_endpoint_auth_methods_supported: ["none"],
    jwks_uri: `${config.baseUrl}/.well-known/jwks.json`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token", "client_credentials"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
    scopes_supported: ["api"],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${config.baseUrl}/openapi.json`,
  };
}

const IDP_METADATA_TTL_MS = 5 * 60 * 1000;
/** The provider's last fetched metadata, per app. */
const IDP_METADATA = memoKey<{
  entry?: { issuer: string; at: number; body: Record<string, unknown> };
}>("IdP metadata");

/**
 * In oidc mode, the external provider's own RFC 8414 (or OpenID discovery)
 * document, cached for five minutes; when it cannot be fetched, the
 * endpoints SPEC.md derives from AUTH_URL.
 */
async function oidcMetadata(services: Services): Promise<Record<string, unknown>> {
  const { config, clock } = services;
  const now = clock.now().getTime();
  const cached = services.memo(IDP_METADATA, () => ({}));
  const hit = cached.entry;
  if (hit && hit.issuer === config.auth.issuer && now - hit.at < IDP_METADATA_TTL_MS) {
    return hit.body;
  }
  const doFetch = services.fetch ?? fetch;
  for (
    const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]
  ) {
    const res = await doFetch(config.auth.issuer + path, { signal: AbortSignal.timeout(5000) })
      .catch(() => null);
    if (res?.ok) {
      const body = await res.json().catch(() => null);
      if (body && typeof body === "object" && body.issuer === config.auth.issuer) {
        cached.entry = { issuer: config.auth.issuer, at: now, body };
        return body;
      }
    } else await res?.body?.cancel();
  }
  return {
    issuer: config.auth.issuer,
    authorization_endpoint: `${config.auth.authUrl}/oauth2/authorize`,
    token_endpoint: `${config.auth.authUrl}/oauth2/token`,
    response_types_supported: ["code"],
    code_challenge_methods_supported: ["S256"],
  };
}

wellKnownRoutes.openapi(
  createRoute({
    method: "get",
    path: "/.well-known/oauth-authorization-server",
    operationId: "getAuthorizationServerMetadata",
    tags: ["Service"],
    summary: "OAuth 2.0 authorization server metadata (RFC 8414)",
    responses: {
      200: json(AuthorizationServerMetadata, "Metadata of the identity provider in use"),
    },
  }),
  async (c) => {
    const services = c.var.services;
    const body = services.config.auth.mode === "builtin"
      ? builtinMetadata(services)
      : await oidcMetadata(services);
    c.header("Cache-Control", "public, max-age=300");
    return c.json(body as z.infer<typeof AuthorizationServerMetadata>, 200);
  },
);
