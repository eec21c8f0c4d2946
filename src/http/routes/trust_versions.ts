/**
 * A public project's version history in the negotiated format: HTML for browsers
 * (Accept: text/html, or /versions.html), Markdown for agents (Accept: text/markdown, or
 * /versions.md) and the JSON list otherwise, all from one page of versions read in
 * src/serve. Unknown, private and never-published projects answer the same 404.
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import {
  PublishedVersionListResponse,
  SlugParams,
  VersionPageQuery,
} from "../../domain/publish.ts";
import { renderVersionsHtml, renderVersionsMarkdown } from "../../publish/render/history.ts";
import { publicUrls } from "../../publish/urls.ts";
import { MARKDOWN_TYPE, trustPageHeaders } from "../../serve/headers.ts";
import { JSON_VERSIONS_LIMIT, PAGE_VERSIONS_LIMIT, versionPage } from "../../serve/history.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat, pageUrl, type PublicFormat } from "../negotiation.ts";
import { documentedJson, errors } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** The versions list in its three formats, mounted at /trust. */
export const trustVersionRoutes = createRouter();

const tags = ["Public trust"];

const VersionsContent = {
  "application/json": { schema: PublishedVersionListResponse },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};

async function answer(
  c: Context<AppEnv>,
  input: { slug: string; query: VersionPageQuery; format: PublicFormat },
): Promise<Response> {
  const { slug, query, format } = input;
  const defaultLimit = format === "json" ? JSON_VERSIONS_LIMIT : PAGE_VERSIONS_LIMIT;
  const { project, body } = await versionPage(c.var.services, slug, { ...query, defaultLimit });
  publicHeaders(c);
  c.header("Vary", "Accept");
  if (format === "json") return c.json(body, 200);
  const urls = publicUrls(c.var.services.config, project.slug);
  const base = format === "html" ? urls.versionsHtml : urls.versionsMarkdown;
  const links = {
    page: format === "html" ? urls.page : `${urls.page}.md`,
    json: pageUrl(urls.versions, query),
    versionPage: format === "html" ? urls.versionPage : urls.versionMarkdown,
    versionTrustJson: urls.versionTrustJson,
    next: body.nextCursor ? pageUrl(base, { cursor: body.nextCursor, limit: query.limit }) : null,
    newest: query.cursor ? pageUrl(base, { limit: query.limit }) : null,
  };
  const input_ = {
    project: { name: project.name, slug: project.slug },
    versions: body.versions,
    links,
  };
  if (format === "md") {
    return c.body(renderVersionsMarkdown(input_), 200, { "content-type": MARKDOWN_TYPE });
  }
  return c.body(renderVersionsHtml(input_), 200, trustPageHeaders());
}

const ABOUT =
  "Newest first, each version with its overall state, digest and the controls whose state changed since the version before it (before → after, with the reason). Pages: pass nextCursor as cursor for older versions.";

trustVersionRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/versions",
    operationId: "listTrustVersions",
    tags,
    summary: "Published versions with their state changes",
    description:
      `${ABOUT} JSON by default, HTML for Accept: text/html, Markdown for Accept: text/markdown; /versions.html and /versions.md choose explicitly.`,
    request: { params: SlugParams, query: VersionPageQuery },
    responses: {
      200: { content: VersionsContent, description: "A page of versions, newest first" },
      ...errors(400, 404),
    },
  }),
  async (c) => {
    const response = await answer(c, {
      slug: c.req.valid("param").projectSlug,
      query: c.req.valid("query"),
      format: negotiatedFormat(c),
    });
    return documentedJson(PublishedVersionListResponse, response);
  },
);

for (
  const [suffix, type, operationId] of [
    ["html", "text/html", "getTrustVersionsPage"],
    ["md", "text/markdown", "getTrustVersionsMarkdown"],
  ] as const
) {
  trustVersionRoutes.openapi(
    createRoute({
      method: "get",
      path: `/{projectSlug}/versions.${suffix}`,
      operationId,
      tags,
      summary: `The version history as ${suffix === "html" ? "an HTML page" : "Markdown"}`,
      description: ABOUT,
      request: { params: SlugParams, query: VersionPageQuery },
      responses: {
        200: { content: { [type]: { schema: z.string() } }, description: "A page of versions" },
        ...errors(400, 404),
      },
    }),
    async (c) =>
      await answer(c, {
        slug: c.req.valid("param").projectSlug,
        query: c.req.valid("query"),
        format: suffix,
      }),
  );
}
