/**
 * The buyer organization's service tokens, mounted at /public/trust (admins): list them
 * (never their secrets), create a read-only one for the organization's tools, revoke one.
 * Each call takes a buyer token (`tpb_…`).
 */
import { createRoute } from "@hono/zod-openapi";
import {
  BuyerTokensResponse,
  CreateServiceTokenRequest,
  ServiceTokenCreated,
} from "../../domain/buyers.ts";
import { uuidParam } from "../../domain/common.ts";
import { notFound } from "../../domain/errors.ts";
import { OrgSlugParams } from "../../domain/subprocessors.ts";
import { createServiceToken, requireBuyerAdmin } from "../../serve/buyers.ts";
import { listServiceTokens, revokeBuyerToken } from "../../store/buyers.ts";
import { BUYER, caller, requireBuyerBearer, tags } from "../buyer_caller.ts";
import { createRouter } from "../env.ts";
import { errors, json, jsonBody } from "../openapi.ts";

/** Mounted at /public/trust. */
export const buyerTokenRoutes = createRouter();

buyerTokenRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/buyer/tokens",
    operationId: "listBuyerServiceTokens",
    tags,
    summary: "The buyer organization's service tokens (admins); never their secrets",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams },
    responses: { 200: json(BuyerTokensResponse, "The tokens"), ...errors(401, 403, 404) },
  }),
  async (c) => {
    const { org, who } = await caller(c, c.req.valid("param").orgSlug);
    requireBuyerAdmin(who);
    return c.json(
      { tokens: await listServiceTokens(c.var.services.kv, org.id, who.buyer.domain) },
      200,
    );
  },
);

buyerTokenRoutes.openapi(
  createRoute({
    method: "post",
    path: "/{orgSlug}/buyer/tokens",
    operationId: "createBuyerServiceToken",
    tags,
    summary: "Create a read-only service token for the organization's tools (admins)",
    description:
      "The secret is in this answer only (stored as a hash). The token reads the document list and downloads, within documentIds when given (documents granted now), and only while the organization's grants last; it cannot ask for access or manage people. It expires after expiresInDays (90 when left out, at most 365); revoke it sooner with DELETE.",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams, body: jsonBody(CreateServiceTokenRequest) },
    responses: {
      201: json(ServiceTokenCreated, "Created; the secret is shown once"),
      ...errors(400, 401, 403, 404, 409, 413, 415),
    },
  }),
  async (c) => {
    const { org, who, now } = await caller(c, c.req.valid("param").orgSlug);
    const body = c.req.valid("json");
    const created = await createServiceToken(c.var.services.kv, {
      org,
      caller: who,
      name: body.name,
      documentIds: body.documentIds,
      expiresInDays: body.expiresInDays,
      now,
    });
    return c.json(created, 201);
  },
);

buyerTokenRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/{orgSlug}/buyer/tokens/{tokenId}",
    operationId: "revokeBuyerServiceToken",
    tags,
    summary: "Revoke a service token (admins): it stops working at once",
    security: BUYER,
    middleware: [requireBuyerBearer] as const,
    request: { params: OrgSlugParams.extend({ tokenId: uuidParam("tokenId") }) },
    responses: { 204: { description: "Revoked" }, ...errors(400, 401, 403, 404) },
  }),
  async (c) => {
    const { orgSlug, tokenId } = c.req.valid("param");
    const { org, who, now } = await caller(c, orgSlug);
    requireBuyerAdmin(who);
    if (!(await revokeBuyerToken(c.var.services.kv, org.id, who.buyer.domain, tokenId, now))) {
      throw notFound("No such token in your organization");
    }
    return c.body(null, 204);
  },
);
