/**
 * The vendor's side of buyer access (FRR-ADS-TC-05/06): the inventory of buyer organizations
 * (their people, what they may read and until when, their service tokens) with revocation,
 * the access rules per document and the organization's access settings (deny list, how long
 * summaries are kept), the access summaries (JSON, CSV, and an SVG chart), the log of reads
 * and the anonymous page counters.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  AccessRule,
  BuyerGrant,
  BuyerMember,
  BuyerOrganization,
  BuyerToken,
  EmailDomain,
  MAX_BUYER_ORGANIZATIONS,
  MAX_DENY_DOMAINS,
  MAX_SUMMARY_MONTHS,
  MIN_SUMMARY_MONTHS,
  PutAccessRuleRequest,
  ruleSettings,
} from "../../domain/buyers.ts";
import { AccessRuleEntriesResponse } from "../../domain/access_rules.ts";
import { DateTime, uuidParam } from "../../domain/common.ts";
import { chooseRule } from "../../serve/access_rules.ts";
import { forbidden, notFound, validationFailed } from "../../domain/errors.ts";
import {
  buyerSummary,
  SUMMARY_CONTENT,
  summaryAnswer,
  summaryChartSvg,
  SummaryQuery,
} from "../../serve/buyer_summaries.ts";
import { DEFAULT_ACCESS_SETTINGS, liveGrants, ruleOf } from "../../serve/buyers.ts";
import {
  deleteAccessRule,
  getAccessSettings,
  getBuyerOrganization,
  listAccessEvents,
  listBuyerMembers,
  listBuyerOrganizations,
  listPageViews,
  listServiceTokens,
  revokeBuyerAccess,
  setAccessRule,
  setAccessSettings,
  setBuyerOrganization,
} from "../../store/buyers.ts";
import { getDocument, listDocuments } from "../../store/documents.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const buyerInventoryRoutes = createRouter();

const tags = ["Buyers"];
const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const DomainParams = OrgParams.extend({
  domain: EmailDomain.openapi({ param: { name: "domain", in: "path" }, example: "agency.gov" }),
});
const DocParams = OrgParams.extend({ documentId: uuidParam("documentId") });

async function orgFor(c: Context<AppEnv>, organizationId: string, role?: "owner") {
  await requireMembership(c, organizationId, role);
  const org = await getOrganization(c.var.services.kv, organizationId);
  if (!org) throw forbidden();
  c.header("Cache-Control", "private, no-store");
  return org;
}

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

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/access-rules",
    operationId: "listAccessRules",
    tags,
    summary:
      "Each restricted document's access rule (members): its own, its project's, the trust center's or the default, with which",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(AccessRuleEntriesResponse, "The rules"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const { kv } = c.var.services;
    const rules = [];
    for (const document of await listDocuments(kv, org.id)) {
      if (document.visibility !== "restricted") continue;
      const { rule, source, projectName } = await chooseRule(kv, org.id, document);
      rules.push({
        ...rule,
        title: document.title,
        projectId: document.projectId,
        source,
        projectName,
      });
    }
    rules.sort((a, b) => a.title.localeCompare(b.title));
    return c.json({ rules }, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/access-rules/{documentId}",
    operationId: "putAccessRule",
    tags,
    summary: "Set a restricted document's access rule (owners)",
    description:
      "mode click-through: accepting the NDA opens it at once; verified: open at once to autoApproveDomains (and the organization's auto-approved domains) and, with buyerOrganizations, to every existing buyer organization, others wait for an owner; manual: an owner decides each request. denyDomains are refused whatever the mode. Grants last expiresInDays (30 when left out); asking again renews. Public documents need no rule: they are open to all.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DocParams, body: jsonBody(PutAccessRuleRequest) },
    responses: {
      200: json(z.object({ rule: AccessRule }), "The rule"),
      ...errors(400, 401, 403, 404, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId, documentId } = c.req.valid("param");
    const org = await orgFor(c, organizationId, "owner");
    const { kv, clock } = c.var.services;
    const document = await getDocument(kv, org.id, documentId);
    if (!document) throw notFound("No such document");
    if (document.visibility !== "restricted") {
      throw validationFailed(
        "A public document is open to everyone: rules are for restricted ones",
      );
    }
    const body = c.req.valid("json");
    const rule = { documentId, ...ruleSettings(body, clock.now()) };
    await setAccessRule(kv, org.id, rule);
    return c.json({ rule }, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/access-rules/{documentId}",
    operationId: "deleteAccessRule",
    tags,
    summary:
      "Put a document back on its project's rule, else the trust center's for every document (owners)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: DocParams },
    responses: {
      200: json(z.object({ rule: AccessRule }), "The default rule"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId, documentId } = c.req.valid("param");
    const org = await orgFor(c, organizationId, "owner");
    await deleteAccessRule(c.var.services.kv, org.id, documentId);
    return c.json({ rule: await ruleOf(c.var.services.kv, org.id, documentId) }, 200);
  },
);

const AccessSettings = z.object({
  denyDomains: z.array(z.string()).openapi({
    description: "Never granted anything, whatever a document's rule (competitors' domains)",
  }),
  summaryMonths: z.number().int().openapi({
    description:
      `Months reads and summaries are kept (${MIN_SUMMARY_MONTHS}–${MAX_SUMMARY_MONTHS})`,
  }),
  defaultRule: AccessRule.omit({ documentId: true, updatedAt: true }).nullable().openapi({
    description:
      "The rule of every restricted document that has none of its own; null: auto-approved domains, else an owner decides",
  }),
}).openapi("AccessSettings");
const PutAccessSettings = z.strictObject({
  denyDomains: z.array(EmailDomain).max(MAX_DENY_DOMAINS),
  summaryMonths: z.number().int().min(MIN_SUMMARY_MONTHS).max(MAX_SUMMARY_MONTHS),
  defaultRule: PutAccessRuleRequest.nullable().default(null).openapi({
    description: "The rule of every restricted document without its own (null: none)",
  }),
}).openapi("PutAccessSettings");

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/access-settings",
    operationId: "getAccessSettings",
    tags,
    summary: "The deny list and how long reads are kept (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: { 200: json(AccessSettings, "The settings"), ...errors(400, 401, 403) },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const settings = await getAccessSettings(c.var.services.kv, org.id, DEFAULT_ACCESS_SETTINGS);
    return c.json({ ...settings, defaultRule: settings.defaultRule ?? null }, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/access-settings",
    operationId: "putAccessSettings",
    tags,
    summary: "Set the deny list and how long reads are kept, at least six months (owners)",
    description:
      "A new retention applies to reads recorded from now on; what was recorded keeps the retention it was recorded with.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(PutAccessSettings) },
    responses: {
      200: json(AccessSettings, "The settings"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId, "owner");
    const body = c.req.valid("json");
    const group = body.defaultRule;
    const value = {
      denyDomains: [...new Set(body.denyDomains)],
      summaryMonths: body.summaryMonths,
      defaultRule: group && {
        mode: group.mode,
        autoApproveDomains: [...new Set(group.autoApproveDomains)],
        buyerOrganizations: group.buyerOrganizations,
        denyDomains: [...new Set(group.denyDomains)],
        expiresInDays: group.expiresInDays,
      },
    };
    await setAccessSettings(c.var.services.kv, org.id, value);
    return c.json(value, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/access-summaries",
    operationId: "getAccessSummaries",
    tags,
    summary: "Reads by known parties per month, buyer organization, person and document (members)",
    description: "JSON, or CSV with format=csv.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: SummaryQuery },
    responses: {
      200: {
        content: SUMMARY_CONTENT,
        description: "The summary",
      },
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const query = c.req.valid("query");
    const summary = await buyerSummary(c.var.services.kv, org, {
      now: c.var.services.clock.now(),
      months: query.months,
    });
    return summaryAnswer(c, summary, query.format, org.slug);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/access-summaries/chart.svg",
    operationId: "getAccessSummaryChart",
    tags,
    summary: "Reads per month as an SVG bar chart (members), with its numbers as text",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: SummaryQuery.pick({ months: true }) },
    responses: {
      200: { content: { "image/svg+xml": { schema: z.string() } }, description: "The chart" },
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const now = c.var.services.clock.now();
    const summary = await buyerSummary(c.var.services.kv, org, {
      now,
      months: c.req.valid("query").months,
    });
    return c.body(summaryChartSvg(summary, now), 200, {
      "content-type": "image/svg+xml; charset=utf-8",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
  },
);

const AccessEvent = z.object({
  id: z.string(),
  at: DateTime,
  kind: z.enum(["view", "download"]),
  domain: z.string(),
  person: z.string(),
  documentId: z.string(),
  title: z.string(),
  via: z.enum(["session", "service", "link"]),
}).openapi("AccessEvent");

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/access-events",
    operationId: "listAccessEvents",
    tags,
    summary: "Every read by a known party, newest first, at most 500 (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(z.object({ events: z.array(AccessEvent) }), "The reads"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    return c.json({ events: await listAccessEvents(c.var.services.kv, org.id, 500) }, 200);
  },
);

buyerInventoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/page-views",
    operationId: "listPageViews",
    tags,
    summary: "Anonymous views of the trust center's pages, per page and day (members)",
    description:
      "Counted without cookies and without storing any address: one number per path and day.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: OrgParams,
      query: z.object({
        days: z.coerce.number().int().min(1).max(400).default(30).openapi({ type: "integer" }),
      }),
    },
    responses: {
      200: json(
        z.object({
          views: z.array(z.object({ day: z.string(), path: z.string(), views: z.number().int() })),
        }),
        "The counters, by day then path",
      ),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const org = await orgFor(c, c.req.valid("param").organizationId);
    const now = c.var.services.clock.now();
    const from = new Date(now.getTime() - (c.req.valid("query").days - 1) * 86_400_000)
      .toISOString().slice(0, 10);
    return c.json({ views: await listPageViews(c.var.services.kv, org.id, from, 10_000) }, 200);
  },
);
