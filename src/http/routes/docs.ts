/**
 * Documentation pages, each served as Markdown (`.md`, or `Accept:
 * text/markdown`) and as HTML. The evaluation rules are generated from the
 * evaluator's own registry, so the page cannot drift from the code.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { renderEvaluationMarkdown } from "../../evaluate/mod.ts";
import type { AppEnv } from "../env.ts";
import { createRouter } from "../env.ts";
import { memoKey } from "../memo.ts";
import { sendDoc } from "../negotiation.ts";

export const docsRoutes = createRouter();

const MarkdownPage = { content: { "text/markdown": { schema: z.string() } } };
const HtmlPage = { content: { "text/html": { schema: z.string() } } };

const EVALUATION_MARKDOWN = memoKey<string>("evaluation rules");
const evaluationDoc = (c: Context<AppEnv>) =>
  c.var.services.memo(EVALUATION_MARKDOWN, renderEvaluationMarkdown);

docsRoutes.openapi(
  createRoute({
    method: "get",
    path: "/docs/evaluation.md",
    operationId: "getEvaluationRulesMarkdown",
    tags: ["Documentation"],
    summary: "The evaluation rules and every probe, as Markdown",
    responses: { 200: { ...MarkdownPage, description: "Generated from the probe registry" } },
  }),
  (c) => sendDoc(c, "Evaluation rules", { markdown: evaluationDoc(c), format: "md" }),
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
  (c) => sendDoc(c, "Evaluation rules", { markdown: evaluationDoc(c) }),
);
