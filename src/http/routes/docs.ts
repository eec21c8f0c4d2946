/**
 * Documentation pages, each served as Markdown (`.md`, or `Accept:
 * text/markdown`) and as HTML. The evaluation rules are generated from the
 * evaluator's own registry, so the page cannot drift from the code.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { renderEvaluationMarkdown } from "../../evaluate/mod.ts";
import { markdownToHtml } from "../../lib/markdown.ts";
import type { AppEnv } from "../env.ts";
import { createRouter } from "../env.ts";
import { Html, html } from "../../lib/html.ts";
import { pageHeaders, renderPage } from "../html.ts";

export const docsRoutes = createRouter();

const MarkdownPage = { content: { "text/markdown": { schema: z.string() } } };
const HtmlPage = { content: { "text/html": { schema: z.string() } } };

/** Whether the request prefers Markdown to HTML (agents ask with Accept: text/markdown). */
export function wantsMarkdown(c: Context<AppEnv>): boolean {
  const accept = c.req.header("accept") ?? "";
  return /text\/markdown/i.test(accept) && !/text\/html/i.test(accept.split("text/markdown")[0]);
}

/** Answers a documentation page in the negotiated format. */
export function sendDoc(
  c: Context<AppEnv>,
  title: string,
  markdown: string,
  format?: "md" | "html",
) {
  c.header("Vary", "Accept");
  c.header("Cache-Control", "public, max-age=300");
  if (format === "md" || (format === undefined && wantsMarkdown(c))) {
    return c.body(markdown, 200, { "content-type": "text/markdown; charset=utf-8" });
  }
  const body = html`<article class="doc">${new Html(markdownToHtml(markdown))}</article>`;
  return c.body(renderPage(title, body, "document"), 200, pageHeaders());
}

let evaluationMarkdown: string | undefined;
const evaluationDoc = () => evaluationMarkdown ??= renderEvaluationMarkdown();

docsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/docs/evaluation.md",
    operationId: "getEvaluationRulesMarkdown",
    tags: ["Documentation"],
    summary: "The evaluation rules and every probe, as Markdown",
    responses: { 200: { ...MarkdownPage, description: "Generated from the probe registry" } },
  }),
  (c) => sendDoc(c, "Evaluation rules", evaluationDoc(), "md"),
);

docsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/docs/evaluation",
    operationId: "getEvaluationRules",
    tags: ["Documentation"],
    summary: "The evaluation rules (HTML, or Markdown for Accept: text/markdown)",
    responses: {
      200: {
        content: { ...HtmlPage.content, ...MarkdownPage.content },
        description: "Generated from the probe registry",
      },
    },
  }),
  (c) => sendDoc(c, "Evaluation rules", evaluationDoc()),
);
