/**
 * Custom domains and hosted subdomains: a request whose Host belongs to a
 * project is served that project's latest profile at `/`, `/trust.json`,
 * `/trust.json.jws`, `/index.md`, `/feed.xml` and `/badge.svg`, by
 * rewriting it to the canonical /trust/{projectSlug} routes. Every other
 * host passes through.
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
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
    const project = await projectOfHost(c.var.services.kv, hostname(header)!);
    if (!project) return await next();
    const path = canonicalTrustPath(project, c.req.path);
    if (path === null) throw notFound(`No document at ${c.req.path} on this trust page`);
    const target = new URL(path, config.baseUrl);
    const headers = new Headers(c.req.raw.headers);
    headers.set("host", target.host);
    return await fetch(new Request(target, { method: c.req.method, headers }), c.env);
  };
}
