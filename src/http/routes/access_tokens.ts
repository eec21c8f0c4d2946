/**
 * Personal access tokens of an organization (docs/api_access.md): a member creates one (shown
 * once), lists them and revokes them. A member sees and revokes their own; an owner sees and
 * revokes every member's. These routes take a signed-in session only, never a token.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  ACCESS_TOKEN_PREFIX,
  AccessTokenListResponse,
  CreateAccessTokenRequest,
  CreatedAccessTokenResponse,
  MAX_ACCESS_TOKENS_PER_ORGANIZATION,
} from "../../domain/access_tokens.ts";
import { uuidParam } from "../../domain/common.ts";
import { conflict, notFound } from "../../domain/errors.ts";
import { randomToken } from "../../lib/encoding.ts";
import { sha256Hex } from "../../lib/hash.ts";
import {
  createAccessToken,
  getAccessToken,
  listAccessTokens,
  revokeAccessToken,
} from "../../store/access_tokens.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const accessTokenRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const TokenParams = OrgParams.extend({ tokenId: uuidParam("tokenId") });
const tags = ["Organizations"];
const DAY_MS = 24 * 3600 * 1000;
const USE =
  "Send it as `Authorization: Bearer tpat_…` to this organization's routes and its projects' (`/organizations/{organizationId}/…`, `/projects/{id}/…`): it acts as its holder, who must still be a member; a read-only token is refused with 403 on anything but GET and HEAD, and no token manages tokens or deletes.";

accessTokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/access-tokens",
    operationId: "createAccessToken",
    tags,
    summary: "Create a personal access token for this organization's API (shown once)",
    description:
      `${USE} It expires after \`expiresInDays\` (at most 365); at most ${MAX_ACCESS_TOKENS_PER_ORGANIZATION} live tokens per organization.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(CreateAccessTokenRequest) },
    responses: {
      201: json(CreatedAccessTokenResponse, "The token, shown once, and its record"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const body = c.req.valid("json");
    await requireMembership(c, organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const token = ACCESS_TOKEN_PREFIX + randomToken(32);
    const accessToken = {
      id: crypto.randomUUID(),
      organizationId,
      userId: c.var.user.id,
      name: body.name,
      scope: body.scope,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + body.expiresInDays * DAY_MS).toISOString(),
      lastUsedAt: null,
    };
    const created = await createAccessToken(kv, accessToken, {
      tokenHash: await sha256Hex(token),
      now,
      limit: MAX_ACCESS_TOKENS_PER_ORGANIZATION,
    });
    if (!created) {
      throw conflict(
        `The organization already has ${MAX_ACCESS_TOKENS_PER_ORGANIZATION} live access tokens: revoke one first`,
      );
    }
    c.header("cache-control", "no-store");
    return c.json({ accessToken, token }, 201);
  },
);

accessTokenRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/access-tokens",
    operationId: "listAccessTokens",
    tags,
    summary: "Live personal access tokens: the caller's, or every member's for an owner",
    description: "Oldest first, without the tokens themselves; expired ones are left out.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(AccessTokenListResponse, "The tokens"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const membership = await requireMembership(c, organizationId);
    const { kv, clock } = c.var.services;
    const all = await listAccessTokens(kv, organizationId, clock.now());
    const accessTokens = membership.role === "owner"
      ? all
      : all.filter((t) => t.userId === c.var.user.id);
    return c.json({ accessTokens }, 200);
  },
);

accessTokenRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/access-tokens/{tokenId}",
    operationId: "revokeAccessToken",
    tags,
    summary: "Revoke a personal access token (its holder's, or any for an owner)",
    description: "The token is refused from the next request on.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: TokenParams },
    responses: {
      204: { description: "Revoked" },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, tokenId } = c.req.valid("param");
    const membership = await requireMembership(c, organizationId);
    const { kv } = c.var.services;
    const token = await getAccessToken(kv, organizationId, tokenId);
    if (!token || (membership.role !== "owner" && token.userId !== c.var.user.id)) {
      throw notFound("No such access token");
    }
    await revokeAccessToken(kv, organizationId, tokenId);
    return c.body(null, 204);
  },
);
