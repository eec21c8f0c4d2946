/**
 * Public trust reads of a project's history and its feeds: each version's
 * stored documents (immutable), the Atom feed and the badges (the version
 * list is in trust_versions.ts). Unknown and private slugs answer the same 404 as the latest
 * profile's routes.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { PublishedTrustProfile, SlugParams } from "../../domain/publish.ts";
import {
  IMMUTABLE_CACHE,
  JSON_TYPE,
  MARKDOWN_TYPE,
  PUBLIC_CACHE,
  trustJsonHeaders,
  trustPageHeaders,
} from "../../serve/headers.ts";
import { publicProject, publicVersion } from "../../serve/public_read.ts";
import { immutableEdgeHeaders, pageTags } from "../../edge/tags.ts";
import type { Artifact } from "../../domain/publication.ts";
import { respondWithBytes } from "../../serve/artifacts.ts";
import { latestFeed } from "../../serve/feed.ts";
import { EXPORT_FILES, type ExportName } from "../../publish/exports.ts";
import { createRouter } from "../env.ts";
import { errors, json } from "../openapi.ts";
import { serveArtifact, serveLatestArtifact } from "../public_responses.ts";
import {
  DsseEnvelope,
  EXPORT_CONTENT,
  exportArtifact,
  OscalAssessmentResults,
  SecurityInsights,
} from "../../serve/exports.ts";

/** Version documents, feed and badges, mounted at /trust after the latest profile's routes. */
export const trustHistoryRoutes = createRouter();

const tags = ["Public trust"];

const VERSION_DOCUMENTS = {
  "trust.json": { artifact: "trustJson", type: JSON_TYPE },
  "trust.json.jws": { artifact: "jws", type: "application/jose" },
  "index.md": { artifact: "markdown", type: MARKDOWN_TYPE },
  "index.html": { artifact: "html", type: "text/html; charset=utf-8" },
} as const;

/** The standard exports of a version, by file name. */
const EXPORT_DOCUMENTS = Object.fromEntries(
  Object.entries(EXPORT_FILES).map(([name, file]) => [file, name as ExportName]),
);

trustHistoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/versions/{version}/{document}",
    operationId: "getTrustVersionDocument",
    tags,
    summary:
      "One published version's trust.json, signature, Markdown, HTML or standard exports (immutable)",
    request: {
      params: SlugParams.extend({
        version: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({
          param: { name: "version", in: "path" },
          example: 3,
        }),
        document: z.enum([
          "trust.json",
          "trust.json.jws",
          "index.md",
          "index.html",
          ...Object.values(EXPORT_FILES),
        ]).openapi({
          param: { name: "document", in: "path" },
        }),
      }),
    },
    responses: {
      200: {
        content: {
          "application/json": {
            schema: z.union([
              PublishedTrustProfile,
              OscalAssessmentResults,
              DsseEnvelope,
              SecurityInsights,
            ]),
          },
          "application/jose": { schema: z.string() },
          "text/markdown": { schema: z.string() },
          "text/html": { schema: z.string() },
        },
        description: "The stored document; Cache-Control marks it immutable",
      },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(400, 404),
    },
  }),
  async (c) => {
    const { projectSlug, version, document } = c.req.valid("param");
    const { services } = c.var;
    const project = await publicProject(services, projectSlug);
    const publication = await publicVersion(services, { slug: projectSlug, version });
    // Immutable at the edge too, content-addressed, and still tagged: a project made private
    // (or deleted) takes its versions out of the edge with its other pages.
    const edge = (artifact: Artifact) =>
      immutableEdgeHeaders(
        services.config.edge,
        artifact.digest,
        pageTags(project.organizationId, project.id),
      );
    const exported = EXPORT_DOCUMENTS[document];
    if (exported) {
      const artifact = exportArtifact(publication, exported);
      return await serveArtifact(c, artifact, {
        headers: {
          "content-type": EXPORT_CONTENT[exported].type,
          "cache-control": IMMUTABLE_CACHE,
          ...edge(artifact),
        },
      });
    }
    const spec = VERSION_DOCUMENTS[document as keyof typeof VERSION_DOCUMENTS];
    const headers = spec.artifact === "html"
      ? trustPageHeaders(publication.htmlCsp)
      : spec.artifact === "trustJson"
      ? trustJsonHeaders(c.var.services.config, publication.logIndex, { "content-type": spec.type })
      : { "content-type": spec.type };
    const artifact = publication.artifacts[spec.artifact];
    return await serveArtifact(c, artifact, {
      headers: { ...headers, "cache-control": IMMUTABLE_CACHE, ...edge(artifact) },
    });
  },
);

trustHistoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/feed.xml",
    operationId: "getTrustFeed",
    tags,
    summary: "Atom feed: one entry per published version and per update",
    description:
      "Each published version with its state changes, and the project's latest updates (incidents, advisories, changes; an update's entry is updated when it is edited or resolved), newest first by `updated`.",
    request: { params: SlugParams },
    responses: {
      200: { content: { "application/atom+xml": { schema: z.string() } }, description: "Atom 1.0" },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const { bytes, etag } = await latestFeed(c.var.services, c.req.valid("param").projectSlug);
    return await respondWithBytes(c.req.raw, c.var.services, {
      bytes,
      etag,
      headers: {
        "content-type": "application/atom+xml; charset=utf-8",
        "cache-control": PUBLIC_CACHE,
      },
    });
  },
);

trustHistoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/badge.svg",
    operationId: "getTrustBadgeSvg",
    tags,
    summary: "Badge of the overall state (SVG)",
    request: { params: SlugParams },
    responses: {
      200: { content: { "image/svg+xml": { schema: z.string() } }, description: "The badge" },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    return await serveLatestArtifact(c, c.req.valid("param").projectSlug, {
      pick: (publication) => publication.artifacts.badgeSvg,
      type: "image/svg+xml",
      headers: { "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" },
    });
  },
);

trustHistoryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/badge.json",
    operationId: "getTrustBadgeJson",
    tags,
    summary: "Badge of the overall state in the shields.io endpoint format",
    request: { params: SlugParams },
    responses: {
      200: json(
        z.object({
          schemaVersion: z.literal(1),
          label: z.string(),
          message: z.string(),
          color: z.string(),
        }).openapi("ShieldsEndpointBadge"),
        "For https://img.shields.io/endpoint?url=…",
      ),
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    return await serveLatestArtifact(c, c.req.valid("param").projectSlug, {
      pick: (publication) => publication.artifacts.badgeJson,
      type: JSON_TYPE,
    });
  },
);
