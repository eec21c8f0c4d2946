/**
 * Public trust reads of the latest profile (no credentials): the profile in
 * each format, trust.json and its signature, controls and signals, and the
 * project's collector setup guide. Private projects and unknown slugs answer the same 404, so a
 * slug's existence is not revealed. Published documents are served as
 * stored, with their digest as a strong ETag.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { TrustSignalsResponse } from "../../domain/collector.ts";
import {
  PublishedTrustControlsResponse,
  PublishedTrustProfile,
  PublishedTrustProfileResponse,
  SlugParams,
} from "../../domain/publish.ts";
import { ifNoneMatchHits } from "../../serve/artifacts.ts";
import { latestControls, latestSignals } from "../../serve/bodies.ts";
import { publicSetupGuide } from "../../serve/setup_guide.ts";
import { MARKDOWN_TYPE, PUBLIC_CACHE, trustJsonHeaders } from "../../serve/headers.ts";
import { publicPublication } from "../../serve/public_read.ts";
import { notModifiedHeaders } from "../compression.ts";
import { createRouter } from "../env.ts";
import { errors, json } from "../openapi.ts";
import {
  publicHeaders,
  serveArtifact,
  serveLatestArtifact,
  serveLatestProfile,
} from "../public_responses.ts";

/** The latest profile and its parts, mounted at /trust: their paths are relative to it. */
export const publicTrustRoutes = createRouter();

const tags = ["Public trust"];

const ProfileContent = {
  "application/json": { schema: PublishedTrustProfileResponse },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}",
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
    return await serveLatestProfile(c, await publicPublication(c.var.services, slug), suffix);
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/trust.json",
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
    const { publication } = await publicPublication(
      c.var.services,
      c.req.valid("param").projectSlug,
    );
    return await serveArtifact(c, publication.artifacts.trustJson, {
      headers: trustJsonHeaders(c.var.services.config, publication.logIndex),
    });
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/trust.json.jws",
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
    return await serveLatestArtifact(c, c.req.valid("param").projectSlug, {
      pick: (publication) => publication.artifacts.jws,
      type: "application/jose",
    });
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/controls",
    operationId: "getTrustControls",
    tags,
    summary: "The controls of the latest published profile",
    request: { params: SlugParams },
    responses: {
      200: json(PublishedTrustControlsResponse, "Controls with state, confidence and freshness"),
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const slug = c.req.valid("param").projectSlug;
    const { controls, etag } = await latestControls(c.var.services, slug);
    publicHeaders(c);
    c.header("ETag", etag);
    if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
      return c.body(
        null,
        304,
        notModifiedHeaders(c.req.raw, "application/json", { "cache-control": PUBLIC_CACHE }),
      );
    }
    return c.json(controls, 200);
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/signals",
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
    const signals = await latestSignals(c.var.services, c.req.valid("param").projectSlug);
    publicHeaders(c);
    return c.json({ signals }, 200);
  },
);

publicTrustRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/setup.md",
    operationId: "getTrustSetupGuide",
    tags,
    summary: "The project's collector setup guide, with its project id and collector id filled in",
    description:
      "For public projects (published or not): the ids are identifiers, not credentials, and the collector secret never appears. The collector named is the most recently created active one; without one, a placeholder says how to create it.",
    request: { params: SlugParams },
    responses: {
      200: { content: { "text/markdown": { schema: z.string() } }, description: "The guide" },
      ...errors(404),
    },
  }),
  async (c) => {
    const guide = await publicSetupGuide(c.var.services, c.req.valid("param").projectSlug);
    publicHeaders(c);
    return c.body(guide, 200, { "content-type": MARKDOWN_TYPE });
  },
);
