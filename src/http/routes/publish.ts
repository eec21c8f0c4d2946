/**
 * Operator publishing: preview what a publish would change, publish the next
 * version, read the latest and all publications (private projects included).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { notFound } from "../../domain/errors.ts";
import {
  DEFAULT_PUBLISHED_PROFILES_PAGE,
  MAX_PUBLISHED_PROFILES_PAGE,
  PublishedProfileListResponse,
  PublishedProfileResponse,
  PublishPreviewResponse,
  PublishProjectResponse,
  VersionPageQuery,
} from "../../domain/publish.ts";
import { previewPublication } from "../../publish/preview.ts";
import { toPublishedProfile } from "../../publish/publish.ts";
import { getLatestPublication, listPublicationsPage } from "../../store/publications.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";

export const publishRoutes = createRouter();

const tags = ["Publishing"];
const ProjectParams = z.object({ id: uuidParam("id") });
const PublishedProfilesQuery = VersionPageQuery.extend({
  limit: VersionPageQuery.shape.limit.openapi({
    description:
      `Versions per page, 1 to ${MAX_PUBLISHED_PROFILES_PAGE} (default ${DEFAULT_PUBLISHED_PROFILES_PAGE})`,
    example: 20,
  }),
});

publishRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/publish/preview",
    operationId: "previewPublish",
    tags,
    summary: "What publishing now would change, without publishing",
    description:
      "Evaluates every enabled control now, as a publish would, and lists the controls whose state differs from the latest version (from is null before the first version; to is null for a control no longer published), with the reason for the new state. Nothing is stored.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(PublishPreviewResponse, "The next version and its changes"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const { kv, blobs, clock, config } = c.var.services;
    const preview = await previewPublication({ kv, blobs, config }, project.id, clock.now());
    c.header("Cache-Control", "no-store");
    return c.json({ preview }, 200);
  },
);

publishRoutes.openapi(
  createRoute({
    method: "post",
    path: "/projects/{id}/publish",
    operationId: "publishProject",
    tags,
    summary: "Publish the next signed, immutable version of the trust profile",
    description:
      "Recomputes at the publication instant, renders trust.json, HTML, Markdown, feed and badges, signs trust.json (Ed25519 JWS chained to the previous version) and commits the version atomically. A failure answers 500 with the job marked failed; nothing partial is ever visible. While the project's or its organization's deletion is scheduled the publish is refused with 409 and nothing is published (automatic publishes skip it).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      201: json(PublishProjectResponse, "The completed job and the new version"),
      ...errors(400, 401, 403, 409, 500),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const { job, publication } = await c.var.services.publish(project);
    return c.json({ job, publishedProfile: toPublishedProfile(publication) }, 201);
  },
);

publishRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/published-profile",
    operationId: "getPublishedProfile",
    tags,
    summary: "The latest publication's metadata",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(PublishedProfileResponse, "The latest version"),
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const publication = await getLatestPublication(c.var.services.kv, project.id);
    if (!publication) throw notFound("This project has not been published yet");
    return c.json({ publishedProfile: toPublishedProfile(publication) }, 200);
  },
);

publishRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/published-profiles",
    operationId: "listPublishedProfiles",
    tags,
    summary: "Every publication's metadata, newest first, in pages",
    description:
      `Pages of ${DEFAULT_PUBLISHED_PROFILES_PAGE} versions (\`limit\` 1 to ${MAX_PUBLISHED_PROFILES_PAGE}), newest first: pass nextCursor as cursor for the next, older page; the answer links it (Link: rel="next"). A page reads only its own versions, whatever the length of the history.`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams, query: PublishedProfilesQuery },
    responses: {
      200: json(PublishedProfileListResponse, "Publications, newest first"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const query = c.req.valid("query");
    const { publications, more } = await listPublicationsPage(c.var.services.kv, project.id, {
      before: query.cursor === undefined ? undefined : Number(query.cursor),
      limit: query.limit ?? DEFAULT_PUBLISHED_PROFILES_PAGE,
    });
    const last = publications.at(-1);
    const nextCursor = more && last ? String(last.version) : null;
    if (nextCursor) {
      const next = new URL(c.req.url);
      next.searchParams.set("cursor", nextCursor);
      c.header("Link", `<${next.pathname}${next.search}>; rel="next"`);
    }
    return c.json({ publishedProfiles: publications.map(toPublishedProfile), nextCursor }, 200);
  },
);
