/**
 * A public project's documents page: the project's own documents and the organization-wide
 * ones (JSON, HTML for Accept: text/html, Markdown for Accept: text/markdown or
 * /documents.md). Read per request; unknown and private projects answer the trust pages'
 * one 404. Downloads and access requests are the organization's (public_documents.ts).
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import { PublicProjectDocuments } from "../../domain/documents.ts";
import { SlugParams } from "../../domain/publish.ts";
import { documentsCsp } from "../../publish/render/documents.ts";
import {
  renderProjectDocumentsHtml,
  renderProjectDocumentsMarkdown,
} from "../../publish/render/document_lists.ts";
import { publicUrls } from "../../publish/urls.ts";
import { publicProjectDocuments } from "../../serve/documents.ts";
import { MARKDOWN_TYPE, trustPageHeaders } from "../../serve/headers.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat } from "../negotiation.ts";
import { documentedJson, errors } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** Mounted at /trust. */
export const trustDocumentRoutes = createRouter();

const tags = ["Public trust"];
const ABOUT =
  "The documents a buyer looks for on this project's trust page: the project's own and the organization-wide ones, by title (other projects' are left out). Public ones have a downloadUrl; restricted ones are listed by title with a requestAccessUrl (the organization's access request form, after accepting its NDA).";

async function answer(c: Context<AppEnv>, slug: string, markdown: boolean): Promise<Response> {
  const { services } = c.var;
  const list = await publicProjectDocuments(services, slug);
  publicHeaders(c);
  c.header("Vary", "Accept");
  const page = publicUrls(services.config, list.project.slug).page;
  const format = negotiatedFormat(c, markdown ? "md" : undefined);
  if (format === "md") {
    return c.body(renderProjectDocumentsMarkdown(list, `${page}.md`), 200, {
      "content-type": MARKDOWN_TYPE,
    });
  }
  if (format === "html") {
    return c.body(renderProjectDocumentsHtml(list, page), 200, trustPageHeaders(documentsCsp()));
  }
  return c.json(list, 200);
}

trustDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/documents",
    operationId: "getProjectDocuments",
    tags,
    summary: "The project's documents and the organization's",
    description:
      `${ABOUT} JSON by default, HTML for Accept: text/html, Markdown for Accept: text/markdown or at /trust/{projectSlug}/documents.md.`,
    request: { params: SlugParams },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicProjectDocuments },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The documents",
      },
      ...errors(404),
    },
  }),
  async (c) =>
    documentedJson(
      PublicProjectDocuments,
      await answer(c, c.req.valid("param").projectSlug, false),
    ),
);

trustDocumentRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/documents.md",
    operationId: "getProjectDocumentsMarkdown",
    tags,
    summary: "The project's documents and the organization's, as Markdown",
    description: ABOUT,
    request: { params: SlugParams },
    responses: {
      200: { content: { "text/markdown": { schema: z.string() } }, description: "The documents" },
      ...errors(404),
    },
  }),
  async (c) => await answer(c, c.req.valid("param").projectSlug, true),
);
