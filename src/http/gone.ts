/**
 * Public routes of a deleted project or organization answer 410 Gone with a short notice
 * (an HTML page to browsers, the error envelope otherwise), from the moment its deletion is
 * scheduled: `/trust/{projectSlug}…`, `/log/publications/{projectSlug}…` and
 * `/public/trust/{orgSlug}…` (hosted subdomains and custom domains are rewritten to the first).
 * Mounted after the stored layer, which the deletion's edge touch has already made stale, so
 * stored answers cost nothing more; MCP tools and domain reads check through
 * src/serve/public_read.ts.
 */
import type { MiddlewareHandler } from "hono";
import { goneNotice } from "../domain/deletion.ts";
import { gone } from "../domain/errors.ts";
import { html } from "../lib/html.ts";
import { pendingDeletionOf, wasDeleted } from "../store/deletions.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getProjectBySlug } from "../store/projects.ts";
import { errorResponse } from "./errors.ts";
import type { AppEnv } from "./env.ts";
import { pageHeaders, renderPage } from "./html.ts";
import { wantsHtmlPage } from "./html_not_found.ts";

const PROJECT_PATH = /^\/(?:trust|log\/publications)\/([^/]+)(?:\/|$)/;
const ORG_PATH = /^\/public\/trust\/([^/]+)(?:\/|$)/;

/** Whether the project with this slug is deleted or being deleted. */
async function projectGone(kv: Deno.Kv, slug: string): Promise<boolean> {
  const project = await getProjectBySlug(kv, slug);
  if (!project) return await wasDeleted(kv, "project", slug);
  return await pendingDeletionOf(kv, {
    projectId: project.id,
    organizationId: project.organizationId,
  }) !== null;
}

async function organizationGone(kv: Deno.Kv, slug: string): Promise<boolean> {
  const organization = await getOrganizationBySlug(kv, slug);
  if (!organization) return await wasDeleted(kv, "organization", slug);
  return await pendingDeletionOf(kv, { organizationId: organization.id }) !== null;
}

/** The 410 answer: a page for browsers, else the envelope. */
export function goneResponse(request: Request, what: "project" | "organization"): Response {
  const notice = goneNotice(what);
  if (wantsHtmlPage(request)) {
    const body = html`
      <h1>Deleted</h1>
      <p role="status">${notice}.</p>
    `;
    return new Response(renderPage("Deleted", body), {
      status: 410,
      headers: { ...pageHeaders(), "cache-control": "no-store" },
    });
  }
  const response = errorResponse(gone(notice));
  response.headers.set("cache-control", "no-store");
  return response;
}

/**
 * The tenant whose deletion makes `path` answer 410, by slug: any method, under
 * `/trust/{projectSlug}`, `/log/publications/{projectSlug}` or `/public/trust/{orgSlug}`
 * (/openapi.json documents 410 on the operations this names).
 */
export function goneScopeOf(
  path: string,
): { kind: "project" | "organization"; slug: string } | null {
  const project = path.match(PROJECT_PATH);
  const org = project ? null : path.match(ORG_PATH);
  let slug = "";
  try {
    slug = decodeURIComponent((project ?? org)?.[1] ?? "");
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
    if (kind === "project" && await projectGone(kv, slug)) {
      return goneResponse(c.req.raw, "project");
    }
    if (kind === "organization" && await organizationGone(kv, slug)) {
      return goneResponse(c.req.raw, "organization");
    }
    await next();
  };
}
