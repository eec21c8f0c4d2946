/**
 * Content negotiation shared by the routes that answer Markdown or HTML:
 * documentation pages, guides, trust pages and trust centers.
 */
import type { Context } from "hono";
import { Html, html } from "../lib/html.ts";
import { markdownToHtml } from "../lib/markdown.ts";
import type { AppEnv } from "./env.ts";
import { pageHeaders, renderPage } from "./html.ts";

/** Whether the request prefers Markdown to HTML (agents ask with Accept: text/markdown). */
export function wantsMarkdown(c: Context<AppEnv>): boolean {
  const accept = c.req.header("accept") ?? "";
  return /text\/markdown/i.test(accept) && !/text\/html/i.test(accept.split("text/markdown")[0]);
}

/** Answers a documentation page in the negotiated format. */
export function sendDoc(
  c: Context<AppEnv>,
  title: string,
  options: { markdown: string; format?: "md" | "html" },
): Response {
  const { markdown, format } = options;
  c.header("Vary", "Accept");
  c.header("Cache-Control", "public, max-age=300");
  if (format === "md" || (format === undefined && wantsMarkdown(c))) {
    return c.body(markdown, 200, { "content-type": "text/markdown; charset=utf-8" });
  }
  const body = html`<article class="doc">${new Html(markdownToHtml(markdown))}</article>`;
  return c.body(renderPage(title, body, "document"), 200, pageHeaders());
}
