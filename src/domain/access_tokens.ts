/**
 * Personal access tokens (docs/api_access.md): an owner's or member's bearer token for one
 * organization's API, read-only or read-write, expiring within a year, shown once and stored
 * as its SHA-256 only.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";

/** Every token starts with this, so a leaked one is recognizable and told from a JWT. */
export const ACCESS_TOKEN_PREFIX = "tpat_";
/** The longest a token may live. */
export const MAX_ACCESS_TOKEN_DAYS = 365;
/** Tokens one organization may hold at once (revoked and expired ones do not count). */
export const MAX_ACCESS_TOKENS_PER_ORGANIZATION = 100;

export const AccessTokenScope = z.enum(["read", "read-write"]).openapi({
  description:
    "`read`: GET requests only (anything else answers 403); `read-write`: every organization route the token's holder may use",
});
export type AccessTokenScope = z.infer<typeof AccessTokenScope>;

export const AccessToken = z.object({
  id: Uuid,
  organizationId: Uuid,
  userId: Uuid.openapi({ description: "Whose token it is: it acts as this member" }),
  name: z.string(),
  scope: AccessTokenScope,
  createdAt: DateTime,
  expiresAt: DateTime,
  lastUsedAt: DateTime.nullable().openapi({
    description: "When a request last used it (updated at most once a minute), or null",
  }),
}).openapi("AccessToken");
export type AccessToken = z.infer<typeof AccessToken>;

export const CreateAccessTokenRequest = z.strictObject({
  name: oneLine(100).openapi({ description: "What the token is for (shown in the list)" }),
  scope: AccessTokenScope,
  expiresInDays: z.int().min(1).max(MAX_ACCESS_TOKEN_DAYS).openapi({
    description: `Days until it expires, 1 to ${MAX_ACCESS_TOKEN_DAYS}`,
  }),
}).openapi("CreateAccessTokenRequest");

export const CreatedAccessTokenResponse = z.object({
  accessToken: AccessToken,
  token: z.string().openapi({
    description:
      `The token (${ACCESS_TOKEN_PREFIX}…), shown this once: the service keeps only its SHA-256`,
  }),
}).openapi("CreatedAccessTokenResponse");

export const AccessTokenListResponse = z.object({
  accessTokens: z.array(AccessToken),
}).openapi("AccessTokenListResponse");
