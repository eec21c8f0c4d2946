/**
 * A 404 a person sees: browsers (Accept preferring text/html) and `.html` paths get a
 * page with the same status, every other client the JSON envelope. A link a person
 * follows never ends on raw JSON.
 */
import type { AppError } from "../domain/errors.ts";
import { renderNotFoundHtml } from "../publish/render/mod.ts";
import { trustPageHeaders } from "../serve/headers.ts";

/** The quality (q) of `type` in an Accept header, with `*` ranges counted; 0 when absent. */
function quality(accept: string, type: string): number {
  const [major] = type.split("/");
  let best = -1;
  let specificity = -1;
  for (const part of accept.split(",")) {
    const [range, ...params] = part.trim().toLowerCase().split(";");
    const level = range === type ? 2 : range === `${major}/*` ? 1 : range === "*/*" ? 0 : -1;
    if (level < specificity || level < 0) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const value = q ? Number(q.slice(2)) : 1;
    specificity = level;
    best = Number.isFinite(value) ? value : 0;
  }
  return Math.max(best, 0);
}

/**
 * Whether a GET or HEAD asks for a page: its path ends in `.html`, or its Accept header
 * rates text/html above JSON and Markdown (a browser's navigation does; `*\/*` alone and
 * API clients do not).
 */
export function wantsHtmlPage(request: Request): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (new URL(request.url).pathname.endsWith(".html")) return true;
  const accept = request.headers.get("accept") ?? "";
  if (!/text\/html/i.test(accept)) return false;
  const html = quality(accept, "text/html");
  return html > 0 && html > quality(accept, "application/json") &&
    html >= quality(accept, "text/markdown");
}

/** The 404 page for `error`, with the trust pages' strict CSP, varying by Accept. */
export function htmlNotFoundResponse(error: AppError, baseUrl: string): Response {
  const message = error.message.replace(/\.$/, "");
  const body = renderNotFoundHtml({ message, rulesUrl: `${baseUrl}/docs/evaluation` });
  return new Response(body, {
    status: 404,
    headers: {
      ...error.headers,
      ...trustPageHeaders(),
      "cache-control": "no-store",
      vary: "Accept",
    },
  });
}
