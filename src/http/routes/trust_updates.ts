/**
 * A public project's updates: the list (JSON, HTML for Accept: text/html or /updates.html,
 * Markdown for Accept: text/markdown or /updates.md) and one update's page (the same three,
 * `.md` and `.html` after its id choosing). Read per request; unknown and private projects
 * answer the trust pages' one 404.
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import { SlugParams } from "../../domain/publish.ts";
import {
  PublicTrustUpdateResponse,
  PublicTrustUpdates,
  UpdatePageQuery,
} from "../../domain/updates.ts";
import {
  renderUpdateHtml,
  renderUpdateMarkdown,
  renderUpdatesHtml,
  renderUpdatesMarkdown,
  updatesCsp,
} from "../../publish/render/updates.ts";
import { publicUrls } from "../../publish/urls.ts";
import { MARKDOWN_TYPE, trustPageHeaders } from "../../serve/headers.ts";
import { publicUpdateById, publicUpdates } from "../../serve/updates.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat, pageUrl, type PublicFormat } from "../negotiation.ts";
import { documentedJson, errors } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** Mounted at /trust. */
export const trustUpdateRoutes = createRouter();

const tags = ["Public trust"];

async function answerList(
  c: Context<AppEnv>,
  input: { slug: string; query: UpdatePageQuery; format: PublicFormat },
): Promise<Response> {
  const { services } = c.var;
  const list = await publicUpdates(services, input.slug, input.query);
  publicHeaders(c);
  c.header("Vary", "Accept");
  if (input.format === "json") return c.json(list, 200);
  const urls = publicUrls(services.config, list.project.slug);
  const base = input.format === "html" ? urls.updatesHtml : urls.updatesMarkdown;
  const { limit, cursor } = input.query;
  const links = {
    page: input.format === "html" ? urls.page : `${urls.page}.md`,
    json: pageUrl(urls.updates, input.query),
    markdown: pageUrl(urls.updatesMarkdown, input.query),
    next: list.nextCursor ? pageUrl(base, { cursor: list.nextCursor, limit }) : null,
    newest: cursor ? pageUrl(base, { limit }) : null,
  };
  const page = { project: list.project, updates: list.updates, links };
  if (input.format === "md") {
    return c.body(renderUpdatesMarkdown(page), 200, { "content-type": MARKDOWN_TYPE });
  }
  return c.body(renderUpdatesHtml(page), 200, trustPageHeaders(updatesCsp()));
}

const ListContent = {
  "application/json": { schema: PublicTrustUpdates },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};
const ABOUT =
  "Incidents, advisories and changes the vendor posted, newest first, each with its Markdown body and the body rendered to safe HTML. Pages: pass nextCursor as cursor.";

trustUpdateRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/updates",
    operationId: "listTrustUpdates",
    tags,
    summary: "The project's updates (incidents, advisories, changes)",
    description:
      `${ABOUT} JSON by default, HTML for Accept: text/html, Markdown for Accept: text/markdown; /updates.html and /updates.md choose explicitly. The same body as the MCP tool get_trust_updates.`,
    request: { params: SlugParams, query: UpdatePageQuery },
    responses: {
      200: { content: ListContent, description: "A page of updates, newest first" },
      ...errors(400, 404),
    },
  }),
  async (c) => {
    const response = await answerList(c, {
      slug: c.req.valid("param").projectSlug,
      query: c.req.valid("query"),
      format: negotiatedFormat(c),
    });
    return documentedJson(PublicTrustUpdates, response);
  },
);

for (
  const [suffix, type, operationId] of [
    ["html", "text/html", "getTrustUpdatesPage"],
    ["md", "text/markdown", "getTrustUpdatesMarkdown"],
  ] as const
) {
  trustUpdateRoutes.openapi(
    createRoute({
      method: "get",
      path: `/{projectSlug}/updates.${suffix}`,
      operationId,
      tags,
      summary: `The project's updates as ${suffix === "html" ? "an HTML page" : "Markdown"}`,
      description: ABOUT,
      request: { params: SlugParams, query: UpdatePageQuery },
      responses: {
        200: { content: { [type]: { schema: z.string() } }, description: "A page of updates" },
        ...errors(400, 404),
      },
    }),
    async (c) =>
      await answerList(c, {
        slug: c.req.valid("param").projectSlug,
        query: c.req.valid("query"),
        format: suffix,
      }),
  );
}

trustUpdateRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/updates/{updateId}",
    operationId: "getTrustUpdate",
    tags,
    summary: "One update of the project",
    description:
      "JSON by default, HTML for Accept: text/html, Markdown for Accept: text/markdown; `{updateId}.html` and `{updateId}.md` choose explicitly.",
    request: {
      params: SlugParams.extend({
        updateId: z.string().min(1).max(100).openapi({
          param: { name: "updateId", in: "path" },
          example: "3f1c9a52-8d4e-4b7a-9c2e-5a6b7c8d9e0f",
        }),
      }),
    },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicTrustUpdateResponse },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The update",
      },
      ...errors(404),
    },
  }),
  async (c) => {
    const { projectSlug, updateId } = c.req.valid("param");
    const suffix = updateId.match(/\.(md|html)$/)?.[1];
    const id = suffix ? updateId.slice(0, -suffix.length - 1) : updateId;
    const { services } = c.var;
    const found = await publicUpdateById(services, projectSlug, id);
    publicHeaders(c);
    c.header("Vary", "Accept");
    const format = negotiatedFormat(c, suffix);
    const urls = publicUrls(services.config, found.project.slug);
    const input = {
      ...found,
      links: { updates: format === "md" ? urls.updatesMarkdown : urls.updatesHtml },
    };
    if (format === "md") {
      return c.body(renderUpdateMarkdown(input), 200, { "content-type": MARKDOWN_TYPE });
    }
    if (format === "html") {
      return c.body(renderUpdateHtml(input), 200, trustPageHeaders(updatesCsp()));
    }
    return documentedJson(PublicTrustUpdateResponse, c.json(found, 200));
  },
);
