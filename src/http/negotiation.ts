/**
 * Content negotiation shared by the routes that answer Markdown or HTML:
 * documentation pages, guides, trust pages and trust centers.
 */
import type { Context } from "hono";
import { Html, html } from "../lib/html.ts";
import { loadMarkdown } from "../lib/load_markdown.ts";
import type { AppEnv } from "./env.ts";
import { pageHeaders, renderPage } from "./html.ts";

/** Whether the request prefers Markdown to HTML (agents ask with Accept: text/markdown). */
export function wantsMarkdown(c: Context<AppEnv>): boolean {
  return markdownPreferred(c.req.header("accept") ?? "");
}

/** The three representations of a public read. */
export type PublicFormat = "json" | "html" | "md";

/**
 * The format a public read answers in: what an explicit `.md`/`.html` suffix chose, else
 * Markdown for agents (`wantsMarkdown`), HTML for browsers (Accept: text/html), JSON otherwise.
 */
export function negotiatedFormat(c: Context<AppEnv>, suffix?: string): PublicFormat {
  if (suffix === "md" || suffix === "html") return suffix;
  return formatOfAccept(c.req.header("accept") ?? "");
}

/** The format an Accept header chooses (the stored pages are looked up by it too). */
export function formatOfAccept(accept: string): PublicFormat {
  if (markdownPreferred(accept)) return "md";
  return /text\/html/i.test(accept) ? "html" : "json";
}

function markdownPreferred(accept: string): boolean {
  return /text\/markdown/i.test(accept) && !/text\/html/i.test(accept.split("text/markdown")[0]);
}

/** The address of another page of a listing, keeping an explicit limit. */
export function pageUrl(base: string, options: { cursor?: string; limit?: number }): string {
  const params = new URLSearchParams();
  if (options.cursor) params.set("cursor", options.cursor);
  if (options.limit !== undefined) params.set("limit", String(options.limit));
  const query = params.toString();
  return query ? `${base}?${query}` : base;
}

/** Answers a documentation page in the negotiated format. */
export async function sendDoc(
  c: Context<AppEnv>,
  title: string,
  options: { markdown: string; format?: "md" | "html" },
): Promise<Response> {
  const { markdown, format } = options;
  c.header("Vary", "Accept");
  c.header("Cache-Control", "public, max-age=300");
  if (format === "md" || (format === undefined && wantsMarkdown(c))) {
    return c.body(markdown, 200, { "content-type": "text/markdown; charset=utf-8" });
  }
  const { markdownToHtml } = await loadMarkdown();
  const body = html`<article class="doc">${new Html(markdownToHtml(markdown))}</article>`;
  // The page is the same for everyone: public (so the compression middleware takes it), where
  // pageHeaders' no-store is meant for forms.
  return c.body(renderPage(title, body, "document"), 200, {
    ...pageHeaders(),
    "cache-control": "public, max-age=300",
  });
}
