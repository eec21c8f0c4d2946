/**
 * Custom domains and hosted subdomains: a request whose Host belongs to a
 * project is served that project's latest profile at `/`, `/trust.json`,
 * `/trust.json.jws`, `/index.md`, `/feed.xml` and `/badge.svg`, by
 * rewriting it to the canonical /trust/{projectSlug} routes, its
 * security.txt at `/.well-known/security.txt`, and the logos its pages show
 * at `/public/logos/`. Every other host passes through.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import { publicPublication } from "../serve/public_read.ts";
import { SECURITY_TXT_TYPE, securityTxtOf } from "../serve/security_txt.ts";
import { PUBLIC_CACHE } from "../serve/headers.ts";
import type { Project } from "../domain/workspace.ts";
import {
  canonicalTrustPath,
  hostname,
  projectHostLookup,
  serviceHostTest,
} from "../serve/hosts.ts";
import type { AppEnv } from "./env.ts";

/** Rewrites requests for project hosts; `fetch` is the app itself. */
export function hostRouting(
  config: Config,
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  const isServiceHost = serviceHostTest(config);
  const projectOfHost = projectHostLookup(config);
  return async (c, next) => {
    const header = c.req.header("host");
    if (isServiceHost(header) || (c.req.method !== "GET" && c.req.method !== "HEAD")) {
      // No project can own this host (custom domains are never IPs or single labels).
      return await next();
    }
    const host = hostname(header)!;
    const project = await projectOfHost(c.var.services.kv, host);
    if (!project) return await next();
    // Logos are content-addressed and the same on every host: pages here show them.
    if (c.req.path.startsWith("/public/logos/")) return await next();
    if (c.req.path === "/.well-known/security.txt") {
      return await securityTxtOfHost(c, project, hostOrigin(config, host));
    }
    const path = canonicalTrustPath(project, c.req.path);
    if (path === null) throw notFound(`No document at ${c.req.path} on this trust page`);
    const target = new URL(path, config.baseUrl);
    const headers = new Headers(c.req.raw.headers);
    headers.set("host", target.host);
    return await fetch(new Request(target, { method: c.req.method, headers }), c.env);
  };
}

/**
 * The origin a project host is reached at: a hosted subdomain shares the trust-page base's
 * scheme; a custom domain is served over HTTPS (RFC 9116 requires it for security.txt).
 */
function hostOrigin(config: Config, host: string): string {
  const base = new URL(config.trustPageBase);
  const scheme = host.endsWith(`.${base.hostname}`) ? base.protocol : "https:";
  return `${scheme}//${host}`;
}

/** security.txt of the project that owns this host, or 404 (not public, unpublished, no contact). */
async function securityTxtOfHost(
  c: Context<AppEnv>,
  project: Project,
  origin: string,
): Promise<Response> {
  const { kv, config, clock } = c.var.services;
  await publicPublication(c.var.services, project.slug);
  const canonical = `${origin}/.well-known/security.txt`;
  const text = await securityTxtOf(kv, project, { config, canonical, now: clock.now() });
  return c.body(text, 200, {
    "content-type": SECURITY_TXT_TYPE,
    "cache-control": PUBLIC_CACHE,
    "access-control-allow-origin": "*",
  });
}
