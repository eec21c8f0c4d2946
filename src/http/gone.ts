/**
 * Public routes of a deleted project or organization answer 410 Gone with a short notice
 * (an HTML page to browsers, the error envelope otherwise, always `Cache-Control: no-store`),
 * from the moment its deletion is scheduled: `/trust/{projectSlug}…`,
 * `/log/publications/{projectSlug}…` and `/public/trust/{orgSlug}…`, the slug with or without
 * a format suffix (`.md`, `.html`, `.json`, `.xml`); hosted subdomains and custom domains are
 * rewritten to the first. During the grace the notice says the deletion is scheduled, when,
 * and that it may be undone; once the job has started, that it was deleted
 * (src/domain/deletion.ts). Mounted after the stored layer, whose pages of the tenant the
 * deletion's commit has made stale, so stored answers cost nothing more; MCP tools and domain
 * reads check through src/serve/public_read.ts, which holds the rule.
 */
import type { MiddlewareHandler } from "hono";
import { html } from "../lib/html.ts";
import {
  goneError,
  type GoneState,
  organizationGoneState,
  projectGoneState,
} from "../serve/public_read.ts";
import { errorResponse } from "./errors.ts";
import type { AppEnv } from "./env.ts";
import { pageHeaders, renderPage } from "./html.ts";
import { wantsHtmlPage } from "./html_not_found.ts";

const PROJECT_PATH = /^\/(?:trust|log\/publications)\/([^/]+)(?:\/|$)/;
const ORG_PATH = /^\/public\/trust\/([^/]+)(?:\/|$)/;
/**
 * The format suffixes a tenant's own path takes (`/trust/acme.md`, `/public/trust/acme.html`):
 * the tenant is the slug without it. Slugs hold no dot (src/domain/common.ts), so no slug
 * is cut short; `.json` and `.xml` are not routes but answer 410 all the same, so no form of a
 * withdrawn tenant's path answers anything else.
 */
const FORMAT_SUFFIX = /\.(?:md|html|json|xml)$/;

/** The 410 answer: a page for browsers, else the envelope; the notice says scheduled or deleted. */
export function goneResponse(
  request: Request,
  what: "project" | "organization",
  state: GoneState,
): Response {
  const error = goneError(what, state);
  if (wantsHtmlPage(request)) {
    const title = state.scheduled ? "Scheduled for deletion" : "Deleted";
    const body = html`
      <h1>${title}</h1>
      <p role="status">${error.message}.</p>
    `;
    return new Response(renderPage(title, body), {
      status: 410,
      headers: { ...pageHeaders(), "cache-control": "no-store" },
    });
  }
  const response = errorResponse(error);
  response.headers.set("cache-control", "no-store");
  return response;
}

/**
 * The tenant whose deletion makes `path` answer 410, by slug: any method, under
 * `/trust/{projectSlug}`, `/log/publications/{projectSlug}` or `/public/trust/{orgSlug}`, the
 * slug with or without a format suffix (/openapi.json documents 410 on the operations this
 * names).
 */
export function goneScopeOf(
  path: string,
): { kind: "project" | "organization"; slug: string } | null {
  const project = path.match(PROJECT_PATH);
  const org = project ? null : path.match(ORG_PATH);
  let slug = "";
  try {
    slug = decodeURIComponent((project ?? org)?.[1] ?? "").replace(FORMAT_SUFFIX, "");
  } catch {
    return null;
  }
  if (!slug || slug === "domains" || slug.length > 100) return null;
  return { kind: project ? "project" : "organization", slug };
}

export function goneTenants(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const scope = goneScopeOf(c.req.path);
    if (!scope) return await next();
    const { kv } = c.var.services;
    const { kind, slug } = scope;
    const state = kind === "project"
      ? await projectGoneState(kv, slug)
      : await organizationGoneState(kv, slug);
    if (state) return goneResponse(c.req.raw, kind, state);
    await next();
  };
}
