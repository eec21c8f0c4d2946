/**
 * Public reads beyond one project: a profile by verified custom domain
 * (mounted at /trust/domains), and an organization's trust center listing
 * its published projects (mounted at /public/trust).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { OrganizationTrustCenter, PublishedTrustProfileResponse } from "../../domain/publish.ts";
import {
  renderSubprocessorsHtml,
  renderSubprocessorsMarkdown,
  subprocessorsCsp,
} from "../../publish/render/mod.ts";
import { orgTrustCenter, orgTrustCenterPage } from "../../serve/org_center.ts";
import { answersContent } from "../../serve/live/answers.ts";
import { getOrganizationBySlug } from "../../store/organizations.ts";
import { publicSubprocessors } from "../../serve/subprocessors.ts";
import { OrgSlugParams, PublicSubprocessors } from "../../domain/subprocessors.ts";
import type { Context } from "hono";
import type { AppEnv } from "../env.ts";
import { JSON_TYPE, PUBLIC_CACHE, trustPageHeaders } from "../../serve/headers.ts";
import { profileWrap } from "../../serve/bodies.ts";
import { publicationByDomain } from "../../serve/public_read.ts";
import { createRouter } from "../env.ts";
import { negotiatedFormat } from "../negotiation.ts";
import { documentedJson, errors, json } from "../openapi.ts";
import { publicHeaders, serveArtifact } from "../public_responses.ts";

/** The profile of a verified custom domain, mounted at /trust/domains. */
export const trustDomainRoutes = createRouter();
/** Organization trust centers, mounted at /public/trust. */
export const trustCenterRoutes = createRouter();

const tags = ["Public trust"];

trustDomainRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{domain}",
    operationId: "getTrustProfileByDomain",
    tags,
    summary: "The latest trust profile of the project that verified this domain",
    request: {
      params: z.object({
        domain: z.string().min(1).max(300).openapi({
          param: { name: "domain", in: "path" },
          example: "trust.acme.example",
        }),
      }),
    },
    responses: {
      200: json(PublishedTrustProfileResponse, "The same envelope as /trust/{projectSlug}"),
      ...errors(404),
    },
  }),
  async (c) => {
    const { services } = c.var;
    const { project, publication } = await publicationByDomain(
      services.kv,
      c.req.valid("param").domain,
    );
    const response = await serveArtifact(c, publication.artifacts.trustJson, {
      headers: { "cache-control": PUBLIC_CACHE, vary: "Accept", "content-type": JSON_TYPE },
      wrap: await profileWrap(services, project),
    });
    return documentedJson(PublishedTrustProfileResponse, response);
  },
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}",
    operationId: "getOrganizationTrustCenter",
    tags,
    summary:
      "An organization's trust center: who the vendor is and every public, published project",
    description:
      "JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown; `/public/trust/{orgSlug}.md` and `.html` choose explicitly.",
    request: {
      params: z.object({
        orgSlug: z.string().min(1).max(100).openapi({ param: { name: "orgSlug", in: "path" } }),
      }),
    },
    responses: {
      200: {
        content: {
          "application/json": { schema: OrganizationTrustCenter },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The organization and its published projects",
      },
      ...errors(404),
    },
  }),
  async (c) => {
    const { kv, config, clock } = c.var.services;
    const raw = c.req.valid("param").orgSlug;
    const suffix = raw.match(/\.(md|html)$/)?.[1];
    const slug = suffix ? raw.slice(0, -suffix.length - 1) : raw;
    const center = await orgTrustCenter(kv, slug, { config, now: clock.now() });
    publicHeaders(c);
    c.header("Vary", "Accept");
    const link = (slug: string) => `${config.baseUrl}/trust/${encodeURIComponent(slug)}`;
    const format = negotiatedFormat(c, suffix);
    const org = format === "json" ? null : await getOrganizationBySlug(kv, slug);
    const sections = org ? [await answersContent(kv, config, org, "answers")] : [];
    if (format === "md") {
      const md = orgTrustCenterPage(center, { config, format: "md", links: link, sections });
      return c.body(md.bytes, 200, { "content-type": "text/markdown; charset=utf-8" });
    }
    if (format === "html") {
      const page = orgTrustCenterPage(center, { config, format: "html", links: link, sections });
      return c.body(page.bytes, 200, trustPageHeaders(page.csp));
    }
    return c.json(center, 200);
  },
);

/** The subprocessor list as JSON, Markdown (`.md` or Accept) or HTML (Accept: text/html). */
async function serveSubprocessors(c: Context<AppEnv>, slug: string, markdown: boolean) {
  const { kv, config } = c.var.services;
  const list = await publicSubprocessors(kv, slug, { config });
  publicHeaders(c);
  c.header("Vary", "Accept");
  const center = list.url.slice(0, -"/subprocessors".length);
  const format = negotiatedFormat(c, markdown ? "md" : undefined);
  if (format === "md") {
    return c.body(renderSubprocessorsMarkdown(list, center), 200, {
      "content-type": "text/markdown; charset=utf-8",
    });
  }
  if (format === "html") {
    return c.body(renderSubprocessorsHtml(list, center), 200, trustPageHeaders(subprocessorsCsp()));
  }
  return c.json(list, 200);
}

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/subprocessors",
    operationId: "getOrganizationSubprocessors",
    tags,
    summary: "An organization's subprocessors and the history of changes to them",
    description:
      "JSON by default; HTML for Accept: text/html; Markdown for Accept: text/markdown or at `/public/trust/{orgSlug}/subprocessors.md`. The same body as the MCP tool get_subprocessors. The history does not say who made a change.",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicSubprocessors },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "Current subprocessors and their history",
      },
      ...errors(404),
    },
  }),
  (c) => serveSubprocessors(c, c.req.valid("param").orgSlug, false),
);

trustCenterRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{orgSlug}/subprocessors.md",
    operationId: "getOrganizationSubprocessorsMarkdown",
    tags,
    summary: "An organization's subprocessors as Markdown",
    request: { params: OrgSlugParams },
    responses: {
      200: {
        content: { "text/markdown": { schema: z.string() } },
        description: "Current subprocessors and their history",
      },
      ...errors(404),
    },
  }),
  (c) => serveSubprocessors(c, c.req.valid("param").orgSlug, true),
);
