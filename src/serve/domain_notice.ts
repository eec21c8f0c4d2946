/**
 * The notice a custom domain's own page shows when the domain passed to another publisher: a
 * domain a deleted project had verified, released by the service's operator and verified by
 * this project, is served this project's trust page at `/` (HTML or Markdown, as negotiated)
 * and `/index.md`, `/index.html`, with "Another publisher." and the log entry that recorded
 * the change (the sentence `/trust/domains/{domain}` gives as `publisherChange.notice`).
 *
 * The page is the project's, stored once for every host that serves it; the notice belongs to
 * the domain only, so it is added to the answer on the domain's host, as the trust center's
 * page adds its own (src/publish/render/org_center.ts). The answer then has its own ETag, and
 * its own compression and 304 (`respondWithBytes`), from the identity bytes of the page.
 */
import type { NameChange } from "../domain/log.ts";
import { escapeHtml } from "../lib/escape.ts";
import { sha256Hex } from "../lib/hash.ts";
import { escapeMarkdown } from "../publish/render/markdown.ts";
import { type ArtifactCache, respondWithBytes } from "./artifacts.ts";
import { nameChangeOf } from "./log.ts";

/** The paths of a project host whose answer is a page a person reads. */
const PAGE_PATHS = new Set(["/", "/index.md", "/index.html"]);

/** Where the notice goes in the project's HTML page: first thing in its main content. */
const MAIN_OPEN = '<main id="main" class="wrap">';

/** The domain's change of holder when `path` is a page of the host, else null. */
export async function pageNoticeOf(
  kv: Deno.Kv,
  organizationId: string,
  host: string,
  path: string,
): Promise<NameChange | null> {
  if (!PAGE_PATHS.has(path)) return null;
  return await nameChangeOf(kv, organizationId, "domain", host);
}

/**
 * The request headers to ask the project's page with when a notice will be added: the
 * identity bytes (the notice goes into them) and no validators (the page's own ETag is not
 * the answer's).
 */
export function identityRequestHeaders(headers: Headers): Headers {
  const out = new Headers(headers);
  for (const name of ["accept-encoding", "if-none-match", "if-modified-since"]) out.delete(name);
  return out;
}

/** The page's text with the notice, or null when the page is of no type (or shape) it fits. */
export function withNotice(text: string, type: string, change: NameChange): string | null {
  if (/^text\/html\b/i.test(type)) {
    const at = text.indexOf(MAIN_OPEN);
    if (at < 0) return null;
    const end = at + MAIN_OPEN.length;
    const note = `\n<p role="note"><strong>Another publisher.</strong> ${
      escapeHtml(change.notice)
    }</p>`;
    return text.slice(0, end) + note + text.slice(end);
  }
  if (/^text\/markdown\b/i.test(type)) {
    const note = `**Another publisher.** ${escapeMarkdown(change.notice)}\n\n`;
    const firstLine = text.indexOf("\n");
    if (text.startsWith("# ") && firstLine > 0) {
      return `${text.slice(0, firstLine + 1)}\n${note}${
        text.slice(firstLine + 1).replace(/^\n/, "")
      }`;
    }
    return note + text;
  }
  return null;
}

/** Headers of the page that describe its bytes as they came, not the answer built from them. */
const BYTE_HEADERS = new Set(["content-length", "content-encoding", "etag"]);

/**
 * The domain's answer: the project's page (asked with GET and `identityRequestHeaders`) with
 * the notice, compressed as `request` prefers, or 304 when its If-None-Match names the result
 * (to a HEAD, the same headers without the body).
 * Anything but a 200 page of a type the notice fits is answered as it came.
 */
export async function respondWithNotice(
  request: Request,
  page: Response,
  change: NameChange,
  artifacts: ArtifactCache,
): Promise<Response> {
  const type = page.headers.get("content-type") ?? "";
  if (page.status !== 200 || page.headers.has("content-encoding")) return page;
  const text = await page.text();
  const changed = withNotice(text, type, change);
  const bytes = new TextEncoder().encode(changed ?? text);
  const headers: Record<string, string> = {};
  page.headers.forEach((value, name) => {
    if (!BYTE_HEADERS.has(name)) headers[name] = value;
  });
  const etag = `"${await sha256Hex(bytes)}"`;
  const answer = await respondWithBytes(request, { artifacts }, { bytes, etag, headers });
  return request.method === "HEAD"
    ? new Response(null, { status: answer.status, headers: answer.headers })
    : answer;
}
