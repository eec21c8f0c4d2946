/**
 * Public trust reads (no credentials). Private projects and unknown slugs
 * answer the same 404, so a slug's existence is not revealed. Published
 * documents are served as stored, with their digest as a strong ETag.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { TrustSignalsResponse } from "../../domain/collector.ts";
import { notFound } from "../../domain/errors.ts";
import {
  PublishedTrustControlsResponse,
  PublishedTrustProfile,
  PublishedTrustProfileResponse,
  PublishedVersionListResponse,
} from "../../domain/publish.ts";
import type { Project } from "../../domain/workspace.ts";
import { trustPageCsp } from "../../publish/render/mod.ts";
import { getPublication, listPublications, type Publication } from "../../store/publications.ts";
import { getLatestSignals } from "../../store/signals.ts";
import { artifactBytes, serveArtifact } from "../artifacts.ts";
import { TRUST_JSON_HEADERS } from "../fast_path.ts";
import type { AppEnv } from "../env.ts";
import { createRouter } from "../env.ts";
import { errors, json } from "../openapi.ts";
import { wantsMarkdown } from "./docs.ts";
import { setupGuideOf } from "./setup_guide.ts";

export const publicTrustRoutes = createRouter();

/** Cache policy of every latest (unversioned) public read. */
export const PUBLIC_CACHE = "public, s-maxage=300";
/** Cache policy of versioned reads: a version never changes. */
export const IMMUTABLE_CACHE = "public, max-age=31536000, immutable";

const tags = ["Public trust"];
const JSON_TYPE = "application/json; charset=utf-8";
const MARKDOWN_TYPE = "text/markdown; charset=utf-8";

export const SlugParams = z.object({
  projectSlug: z.string().min(1).max(100).openapi({
    param: { name: "projectSlug", in: "path" },
    example: "acme-cloud",
  }),
});

/** Headers of every unversioned public read: shared caching, and readable from any origin. */
export function publicHeaders(c: Context<AppEnv>): void {
  c.header("Cache-Control", PUBLIC_CACHE);
  c.header("Access-Control-Allow-Origin", "*");
}

/**
 * Security headers of a trust page (no script, only its hashed stylesheet). A stored page
 * is served with the policy recorded when it was rendered (`csp`).
 */
export function trustPageHeaders(csp = trustPageCsp()): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  };
}

/** The public project with this slug, or a 404 that does not say which part failed. */
export async function publicProject(c: Context<AppEnv>, slug: string): Promise<Project> {
  const { kv, publicCache } = c.var.services;
  const { project } = await publicCache.get(kv, slug);
  if (!project || project.visibility !== "public") {
    throw notFound(`No public trust profile for "${slug.slice(0, 100)}"`);
  }
  return project;
}

/** The latest publication of a public project, or 404. */
export async function publicPublication(
  c: Context<AppEnv>,
  slug: string,
): Promise<{ project: Project; publication: Publication }> {
  const project = await publicProject(c, slug);
  const { publication } = await c.var.services.publicCache.get(c.var.services.kv, slug);
  if (!publication) throw notFound(`"${slug.slice(0, 100)}" has not published a trust profile yet`);
  return { project, publication };
}

/**
 * The latest profile in the negotiated format: HTML for browsers, Markdown
 * for agents (`Accept: text/markdown`), the JSON envelope otherwise.
 */
export async function serveLatestProfile(
  c: Context<AppEnv>,
  publication: Publication,
  format: "json" | "html" | "md" | undefined,
): Promise<Response> {
  const accept = c.req.header("accept") ?? "";
  const chosen = format ??
    (wantsMarkdown(c) ? "md" : /text\/html/i.test(accept) ? "html" : "json");
  const base = { "cache-control": PUBLIC_CACHE, vary: "Accept" };
  if (chosen === "html") {
    return await serveArtifact(c, publication.artifacts.html, {
      ...base,
      ...trustPageHeaders(publication.htmlCsp),
    });
  }
  if (chosen === "md") {
    return await serveArtifact(c, publication.artifacts.markdown, {
      ...base,
      "content-type": MARKDOWN_TYPE,
    });
  }
  return await serveArtifact(c, publication.artifacts.trustJson, {
    ...base,
    "content-type": JSON_TYPE,
  }, { prefix: '{"profile":', suffix: "}", tag: "envelope" });
}

const ProfileContent = {
  "application/json": { schema: PublishedTrustProfileResponse },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}",
    operationId: "getTrustProfile",
    tags,
    summary: "The latest published trust profile",
    description:
      "JSON envelope by default, HTML for Accept: text/html, Markdown for Accept: text/markdown; `/trust/{projectSlug}.html` and `.md` choose explicitly. Poll at most once per minute.",
    request: { params: SlugParams },
    responses: {
      200: { content: ProfileContent, description: "The profile" },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const raw = c.req.valid("param").projectSlug;
    const suffix = raw.match(/\.(md|html)$/)?.[1] as "md" | "html" | undefined;
    const slug = suffix ? raw.slice(0, -suffix.length - 1) : raw;
    const { publication } = await publicPublication(c, slug);
    return await serveLatestProfile(c, publication, suffix) as never;
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/trust.json",
    operationId: "getTrustJson",
    tags,
    summary: "The latest trust profile as a bare document (machine-readable trust state)",
    request: { params: SlugParams },
    responses: {
      200: json(PublishedTrustProfile, "The exact bytes that trust.json.jws signs"),
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const { publication } = await publicPublication(c, c.req.valid("param").projectSlug);
    return await serveArtifact(c, publication.artifacts.trustJson, TRUST_JSON_HEADERS) as never;
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/trust.json.jws",
    operationId: "getTrustJsonSignature",
    tags,
    summary: "Compact JWS (EdDSA) over the exact bytes of the latest trust.json",
    description:
      "Protected header: kid (see /.well-known/jwks.json), ver (the version) and prev (sha256 digest of the previous version's trust.json, null for version 1).",
    request: { params: SlugParams },
    responses: {
      200: { content: { "application/jose": { schema: z.string() } }, description: "The JWS" },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const { publication } = await publicPublication(c, c.req.valid("param").projectSlug);
    return await serveArtifact(c, publication.artifacts.jws, {
      "content-type": "application/jose",
      "cache-control": PUBLIC_CACHE,
    }) as never;
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/controls",
    operationId: "getTrustControls",
    tags,
    summary: "The controls of the latest published profile",
    request: { params: SlugParams },
    responses: {
      200: json(PublishedTrustControlsResponse, "Controls with state, confidence and freshness"),
      ...errors(404),
    },
  }),
  async (c) => {
    const { publication } = await publicPublication(c, c.req.valid("param").projectSlug);
    const bytes = await artifactBytes(c.var.services.blobs, publication.artifacts.trustJson);
    const { schemaVersion: _v, ...rest } = JSON.parse(new TextDecoder().decode(bytes));
    publicHeaders(c);
    c.header("ETag", `"${publication.artifacts.trustJson.digest}.controls"`);
    return c.json(rest, 200);
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/signals",
    operationId: "getTrustSignals",
    tags,
    summary: "The project's latest repository signal detection",
    description:
      "signals is null when the project never submitted a detection. Poll at most once per minute.",
    request: { params: SlugParams },
    responses: {
      200: json(TrustSignalsResponse, "The latest detection, or null"),
      ...errors(404),
    },
  }),
  async (c) => {
    const project = await publicProject(c, c.req.valid("param").projectSlug);
    const signals = await getLatestSignals(c.var.services.kv, project.id);
    publicHeaders(c);
    return c.json({ signals }, 200);
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/setup.md",
    operationId: "getProjectSetupGuide",
    tags,
    summary: "Setup guide for this project's collector, with its ids filled in",
    request: { params: SlugParams },
    responses: {
      200: { content: { "text/markdown": { schema: z.string() } }, description: "The guide" },
      ...errors(404),
    },
  }),
  async (c) => {
    const project = await publicProject(c, c.req.valid("param").projectSlug);
    const markdown = await setupGuideOf(c.var.services.kv, c.var.services.config, project);
    return c.body(markdown, 200, {
      "content-type": MARKDOWN_TYPE,
      "cache-control": PUBLIC_CACHE,
      "access-control-allow-origin": "*",
    });
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/versions",
    operationId: "listTrustVersions",
    tags,
    summary: "Published versions, newest first, with digests and state changes",
    request: { params: SlugParams },
    responses: {
      200: json(PublishedVersionListResponse, "Up to the 100 newest versions"),
      ...errors(404),
    },
  }),
  async (c) => {
    const { project } = await publicPublication(c, c.req.valid("param").projectSlug);
    const publications = await listPublications(c.var.services.kv, project.id, 100);
    const versions = publications.map((p) => ({
      version: p.version,
      publishedAt: p.publishedAt,
      digest: p.digest,
      previousDigest: p.previousDigest,
      overallState: p.overallState,
      changes: p.changes,
    }));
    publicHeaders(c);
    return c.json({ versions }, 200);
  },
);

const VERSION_DOCUMENTS = {
  "trust.json": { artifact: "trustJson", type: JSON_TYPE },
  "trust.json.jws": { artifact: "jws", type: "application/jose" },
  "index.md": { artifact: "markdown", type: MARKDOWN_TYPE },
  "index.html": { artifact: "html", type: "text/html; charset=utf-8" },
} as const;

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/versions/{version}/{document}",
    operationId: "getTrustVersionDocument",
    tags,
    summary: "One published version's trust.json, signature, Markdown or HTML (immutable)",
    request: {
      params: SlugParams.extend({
        version: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER).openapi({
          param: { name: "version", in: "path" },
          example: 3,
        }),
        document: z.enum(["trust.json", "trust.json.jws", "index.md", "index.html"]).openapi({
          param: { name: "document", in: "path" },
        }),
      }),
    },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublishedTrustProfile },
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
    const project = await publicProject(c, projectSlug);
    const publication = await getPublication(c.var.services.kv, project.id, version);
    if (!publication) throw notFound(`Version ${version} of "${projectSlug}" does not exist`);
    const spec = VERSION_DOCUMENTS[document];
    const headers = spec.artifact === "html"
      ? trustPageHeaders(publication.htmlCsp)
      : { "content-type": spec.type };
    return await serveArtifact(c, publication.artifacts[spec.artifact], {
      ...headers,
      "cache-control": IMMUTABLE_CACHE,
    }) as never;
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/feed.xml",
    operationId: "getTrustFeed",
    tags,
    summary: "Atom feed: one entry per published version, with its state changes",
    request: { params: SlugParams },
    responses: {
      200: { content: { "application/atom+xml": { schema: z.string() } }, description: "Atom 1.0" },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const { publication } = await publicPublication(c, c.req.valid("param").projectSlug);
    return await serveArtifact(c, publication.artifacts.feed, {
      "content-type": "application/atom+xml; charset=utf-8",
      "cache-control": PUBLIC_CACHE,
    }) as never;
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/badge.svg",
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
    const { publication } = await publicPublication(c, c.req.valid("param").projectSlug);
    return await serveArtifact(c, publication.artifacts.badgeSvg, {
      "content-type": "image/svg+xml",
      "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
      "cache-control": PUBLIC_CACHE,
    }) as never;
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/trust/{projectSlug}/badge.json",
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
    const { publication } = await publicPublication(c, c.req.valid("param").projectSlug);
    return await serveArtifact(c, publication.artifacts.badgeJson, {
      "content-type": JSON_TYPE,
      "cache-control": PUBLIC_CACHE,
    }) as never;
  },
);
