/**
 * The vendor's access rules (FRR-ADS-TC-05/06): the rule of each restricted document, and the
 * organization's access settings (deny list, how long summaries are kept, the default rule).
 * A project's rule group is in project_access_rules.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  AccessRule,
  EmailDomain,
  MAX_DENY_DOMAINS,
  MAX_SUMMARY_MONTHS,
  MIN_SUMMARY_MONTHS,
  PutAccessRuleRequest,
  ruleSettings,
} from "../../domain/buyers.ts";
import { AccessRuleEntriesResponse } from "../../domain/access_rules.ts";
import { chooseRule } from "../../serve/access_rules.ts";
import { notFound, validationFailed } from "../../domain/errors.ts";
import { DEFAULT_ACCESS_SETTINGS, ruleOf } from "../../serve/buyers.ts";
import {
  deleteAccessRule,
  getAccessSettings,
  setAccessRule,
  setAccessSettings,
} from "../../store/buyers.ts";
import { getDocument, listDocuments } from "../../store/documents.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { DocParams, orgFor, OrgParams, tags } from "../buyer_admin.ts";

export const accessRuleRoutes = createRouter();

accessRuleRoutes.openapi(
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

accessRuleRoutes.openapi(
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

accessRuleRoutes.openapi(
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

accessRuleRoutes.openapi(
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

accessRuleRoutes.openapi(
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
