/**
 * The built-in identity provider's token endpoints: /oauth2/token (authorization code and
 * refresh token grants, client credentials) and /oauth2/revoke, answering errors in the
 * RFC 6749 §5.2 shape.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { OAuthFailure } from "../../auth/builtin/failure.ts";
import { revokeToken } from "../../auth/builtin/revoke.ts";
import { exchangeGrant } from "../../auth/builtin/token.ts";
import { createRouter } from "../env.ts";
import { json } from "../openapi.ts";
import {
  malformedForm,
  OAuthError,
  oauthError,
  tags,
  TokenForm,
  TokenResponse,
} from "../oauth_forms.ts";

export const oauthTokenRoutes = createRouter();

oauthTokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/token",
    operationId: "token",
    tags,
    summary: "Exchange a grant for an access token",
    description:
      "Grants: authorization_code (PKCE S256), refresh_token (rotated on every use; reuse revokes the session), client_credentials (client_id = collector id, client_secret = collector secret; a 15-minute collector token). Errors follow RFC 6749 §5.2.",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: TokenForm } },
      },
    },
    responses: {
      200: json(TokenResponse, "The access token (an RFC 9068 JWT) and a refresh token"),
      400: json(OAuthError, "The grant is invalid"),
      401: json(OAuthError, "Client authentication failed"),
    },
  }),
  async (c) => {
    c.header("Cache-Control", "no-store");
    const form = c.req.valid("form");
    const authorization = c.req.header("authorization");
    try {
      return c.json(await exchangeGrant(c.var.services, form, { authorization }), 200);
    } catch (error) {
      if (error instanceof OAuthFailure && error.status === 401) {
        c.header("WWW-Authenticate", 'Basic realm="oauth2/token"');
      }
      return oauthError(c, error);
    }
  },
  malformedForm("The token request is malformed"),
);

const RevocationForm = z.object({
  token: z.string().max(4096).optional(),
  token_type_hint: z.string().max(64).optional(),
  client_id: z.string().max(256).optional(),
}).openapi("RevocationRequest");

oauthTokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/oauth2/revoke",
    operationId: "revokeToken",
    tags,
    summary: "Revoke a refresh token, ending its session (RFC 7009)",
    description:
      "Public clients send token and client_id. A refresh token ends every token of its sign-in; an unknown or expired token is answered 200 as RFC 7009 §2.2 asks; an access token (a JWT living 15 minutes) is answered unsupported_token_type.",
    request: {
      body: {
        required: true,
        content: { "application/x-www-form-urlencoded": { schema: RevocationForm } },
      },
    },
    responses: {
      200: { description: "Revoked, or there was nothing to revoke" },
      400: json(OAuthError, "The request is malformed or the token type is not revocable"),
      401: json(OAuthError, "The client is missing or is not the token's"),
    },
  }),
  async (c) => {
    c.header("Cache-Control", "no-store");
    try {
      await revokeToken(c.var.services, c.req.valid("form"));
      return c.body(null, 200);
    } catch (error) {
      return oauthError(c, error);
    }
  },
  malformedForm("The revocation request is malformed"),
);
