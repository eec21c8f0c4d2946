/**
 * What the vendor reads of buyer access (FRR-ADS-TC-05/06): the access summaries (JSON, CSV,
 * and an SVG chart), the log of reads and the anonymous page counters.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { DateTime } from "../../domain/common.ts";
import {
  buyerSummary,
  SUMMARY_CONTENT,
  summaryAnswer,
  summaryChartSvg,
  SummaryQuery,
} from "../../serve/buyer_summaries.ts";
import { listAccessEvents, listPageViews } from "../../store/buyers.ts";
import { requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";
import { orgFor, OrgParams, tags } from "../buyer_admin.ts";

export const accessReportRoutes = createRouter();

accessReportRoutes.openapi(
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

accessReportRoutes.openapi(
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

accessReportRoutes.openapi(
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

accessReportRoutes.openapi(
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
