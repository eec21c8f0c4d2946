/**
 * Server-rendered pages of the service itself (sign-in, sign-up): no script,
 * one shared stylesheet, and a strict Content Security Policy.
 */
import { escapeHtml } from "../lib/escape.ts";
import type { Html } from "../lib/html.ts";

/**
 * Security headers for a page; `formAction` lists the origins a form on the
 * page may submit to, including any it is redirected to afterwards.
 */
export function pageHeaders(formAction: string[] = []): Record<string, string> {
  const csp = [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' data:",
    `form-action 'self'${formAction.map((o) => ` ${o}`).join("")}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join("; ");
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": csp,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
  };
}

/**
 * A complete page around `body`: a narrow card (forms) or a wide document
 * (documentation pages), with a description for search results and link previews.
 */
export function renderPage(
  title: string,
  body: Html,
  layout: "card" | "document" = "card",
  description = `${title}: Trust Profile Service`,
): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<meta name="description" content="${escapeHtml(description)}">
<link rel="stylesheet" href="/static/tokens.css">
<link rel="stylesheet" href="/static/service.css">
<link rel="icon" href="/static/dashboard/icon.svg" type="image/svg+xml">
</head>
<body>
<main class="${layout}">
${body.value}
</main>
</body>
</html>
`;
}
