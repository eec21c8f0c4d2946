/**
 * Operator management of collectors: create (secret shown once), list,
 * rotate (old secret dead at once), revoke.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { newCollectorSecret } from "../../auth/collector.ts";
import {
  type Collector,
  COLLECTOR_ACTIONS,
  CollectorListResponse,
  CollectorResponse,
  CollectorWithSecretResponse,
  CreateCollectorRequest,
  SetupGuideResponse,
} from "../../domain/collector.ts";
import { uuidParam } from "../../domain/common.ts";
import { notFound } from "../../domain/errors.ts";
import {
  createCollector,
  getCollector,
  listCollectorsPage,
  revokeCollector,
  rotateCollectorSecret,
  toPrincipal,
} from "../../store/collectors.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";
import { LIST_PAGE_NOTE, listPageQuery } from "../../domain/list_page.ts";
import { linkNext, pageOf } from "../list_pages.ts";
import { loadMarkdown } from "../../lib/load_markdown.ts";
import { setupGuideOf } from "../../serve/setup_guide.ts";

export const collectorRoutes = createRouter();

const tags = ["Collectors"];
const ProjectParams = z.object({ id: uuidParam("id") });
const CollectorParams = ProjectParams.extend({ collectorId: uuidParam("collectorId") });

function ofProject(collector: Collector | null, projectId: string): Collector {
  if (!collector || collector.projectId !== projectId) {
    throw notFound("No such collector in this project");
  }
  return collector;
}

collectorRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/setup.md",
    operationId: "getCollectorSetupGuide",
    tags,
    summary: "The project's collector setup guide, with its ids filled in",
    description:
      "For members, private projects included: it names the project id and the most recently created active collector's id (never a secret). Public projects' guides are also at GET /trust/{projectSlug}/setup.md.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: { content: { "text/markdown": { schema: z.string() } }, description: "The guide" },
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    return c.body(await setupGuideOf(c.var.services, project), 200, {
      "content-type": "text/markdown; charset=utf-8",
      "cache-control": "private, no-cache",
    });
  },
);

collectorRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/setup.json",
    operationId: "getCollectorSetupGuideBlocks",
    tags,
    summary: "The same setup guide as blocks of plain text, for the dashboard to render",
    description:
      "For members only, like setup.md: the Markdown and its headings, paragraphs, lists and code blocks as data (text is never markup), so a page builds its elements without parsing HTML.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(SetupGuideResponse, "The guide"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const markdown = await setupGuideOf(c.var.services, project);
    const { markdownBlocks } = await loadMarkdown();
    c.header("cache-control", "private, no-cache");
    return c.json({ markdown, blocks: markdownBlocks(markdown) }, 200);
  },
);

collectorRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/collectors",
    operationId: "listCollectors",
    tags,
    summary: "Collectors of a project (secrets are never shown again)",
    description: `Oldest first. ${LIST_PAGE_NOTE}`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, query: listPageQuery("Collectors") },
    responses: {
      200: json(CollectorListResponse, "The collectors, oldest first"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const page = pageOf("collectors", c.req.valid("query"));
    const { values, nextCursor } = await listCollectorsPage(c.var.services.kv, project.id, page);
    linkNext(c, nextCursor);
    return c.json({ collectors: values.map(toPrincipal), nextCursor }, 200);
  },
);

collectorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/collectors",
    operationId: "createCollector",
    tags,
    summary: "Create a collector and show its secret once",
    description:
      "The secret (`tpc_…`) is returned only in this response; the service keeps its SHA-256. allowedActions defaults to all of heartbeat, ingest:evidence and ingest:signals.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, body: jsonBody(CreateCollectorRequest) },
    responses: {
      201: json(CollectorWithSecretResponse, "The collector and its one-time secret"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const body = c.req.valid("json");
    const { kv, clock } = c.var.services;
    const secret = await newCollectorSecret();
    const collector = await createCollector(kv, {
      organizationId: project.organizationId,
      projectId: project.id,
      name: body.name,
      allowedActions: body.allowedActions ?? [...COLLECTOR_ACTIONS],
      createdByUserId: c.var.user.id,
      secretHash: secret.hash,
    }, clock.now());
    c.header("Cache-Control", "no-store");
    return c.json({
      collector: toPrincipal(collector),
      secret: { value: secret.value, prefix: secret.prefix },
    }, 201);
  },
);

collectorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/collectors/{collectorId}/rotate",
    operationId: "rotateCollectorSecret",
    tags,
    summary: "Replace a collector's secret; the old one stops working at once",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: CollectorParams },
    responses: {
      200: json(CollectorWithSecretResponse, "The collector and its new one-time secret"),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { id, collectorId } = c.req.valid("param");
    const project = await requireProjectAccess(c, id);
    const { kv } = c.var.services;
    ofProject(await getCollector(kv, collectorId), project.id);
    const secret = await newCollectorSecret();
    const collector = ofProject(
      await rotateCollectorSecret(kv, collectorId, secret.hash),
      project.id,
    );
    c.header("Cache-Control", "no-store");
    return c.json({
      collector: toPrincipal(collector),
      secret: { value: secret.value, prefix: secret.prefix },
    }, 200);
  },
);

collectorRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/collectors/{collectorId}/revoke",
    operationId: "revokeCollector",
    tags,
    summary: "Revoke a collector; its credentials answer 401 from now on",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: CollectorParams },
    responses: {
      200: json(CollectorResponse, "The revoked collector"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { id, collectorId } = c.req.valid("param");
    const project = await requireProjectAccess(c, id);
    const { kv, clock } = c.var.services;
    ofProject(await getCollector(kv, collectorId), project.id);
    const collector = ofProject(await revokeCollector(kv, collectorId, clock.now()), project.id);
    return c.json({ collector: toPrincipal(collector) }, 200);
  },
);
