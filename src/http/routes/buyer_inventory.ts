/**
 * The vendor's side of buyer access (FRR-ADS-TC-05/06): the inventory of buyer organizations
 * (their people, what they may read and until when, their service tokens) with revocation and
 * its undoing. The access rules and settings are in access_rules.ts, the summaries, reads and
 * page counters in access_reports.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  BuyerGrant,
  BuyerMember,
  BuyerOrganization,
  BuyerToken,
  MAX_BUYER_ORGANIZATIONS,
} from "../../domain/buyers.ts";
import { notFound } from "../../domain/errors.ts";
import { liveGrants } from "../../serve/buyers.ts";
import {
  getBuyerOrganization,
  listBuyerMembers,
  listBuyerOrganizations,
  listServiceTokens,
  revokeBuyerAccess,
  setBuyerOrganization,
} from "../../store/buyers.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";
import { DomainParams, orgFor, OrgParams, tags } from "../buyer_admin.ts";

export const buyerInventoryRoutes = createRouter();

const InventoryEntry = z.object({
  buyerOrganization: BuyerOrganization,
  members: z.array(BuyerMember),
  grants: z.array(BuyerGrant).openapi({ description: "What it may read now, until when" }),
  serviceTokens: z.array(BuyerToken),
}).openapi("BuyerInventoryEntry");
const InventoryResponse = z.object({
  buyerOrganizations: z.array(InventoryEntry).openapi({
    description: `By domain, at most ${MAX_BUYER_ORGANIZATIONS}`,
  }),
}).openapi("BuyerInventoryResponse");

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/buyer-organizations",
    operationId: "listBuyerOrganizations",
    tags,
    summary:
      "The access inventory: each buyer organization, its people, grants and tokens (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(InventoryResponse, "The inventory"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const out = [];
    for (const buyer of await listBuyerOrganizations(kv, org.id, MAX_BUYER_ORGANIZATIONS)) {
      out.push({
        buyerOrganization: buyer,
        members: await listBuyerMembers(kv, org.id, buyer.domain),
        grants: buyer.revokedAt
          ? []
          : (await liveGrants(kv, org, { buyer, token: null }, now)).map((g) => g.grant),
        serviceTokens: await listServiceTokens(kv, org.id, buyer.domain),
      });
    }
    return c.json({ buyerOrganizations: out }, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/buyer-organizations/{domain}/revoke",
    operationId: "revokeBuyerOrganization",
    tags,
    summary: "Revoke a buyer organization's access (owners): grants and tokens end at once",
    description:
      "Its grants are deleted, its tokens and sessions revoked, and its people cannot sign in again until an owner restores it (POST …/restore). Its reads stay in the inventory and summaries.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DomainParams },
    responses: {
      200: json(z.object({ buyerOrganization: BuyerOrganization }), "Revoked"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, domain } = c.req.valid("param");
    const org = await orgFor(c, organizationId, "owner");
    const { kv, clock } = c.var.services;
    const now = clock.now();
    const buyer = await getBuyerOrganization(kv, org.id, domain);
    if (!buyer) throw notFound("No buyer organization with this domain");
    const revoked = { ...buyer, revokedAt: buyer.revokedAt ?? now.toISOString() };
    await setBuyerOrganization(kv, org.id, revoked);
    await revokeBuyerAccess(kv, org.id, domain, now);
    return c.json({ buyerOrganization: revoked }, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "post",
    path: "/organizations/{organizationId}/buyer-organizations/{domain}/restore",
    operationId: "restoreBuyerOrganization",
    tags,
    summary: "Let a revoked buyer organization sign in again (owners); it asks anew for documents",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DomainParams },
    responses: {
      200: json(z.object({ buyerOrganization: BuyerOrganization }), "Restored"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, domain } = c.req.valid("param");
    const org = await orgFor(c, organizationId, "owner");
    const { kv } = c.var.services;
    const buyer = await getBuyerOrganization(kv, org.id, domain);
    if (!buyer) throw notFound("No buyer organization with this domain");
    const restored = { ...buyer, revokedAt: null };
    await setBuyerOrganization(kv, org.id, restored);
    return c.json({ buyerOrganization: restored }, 200);
  },
);
