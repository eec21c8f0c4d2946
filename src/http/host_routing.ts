/**
 * Custom domains and hosted subdomains: a request whose Host is a verified
 * domain of a project, or `<hostedSubdomain>.<trust page host>`, is served
 * that project's latest profile at `/`, `/trust.json`, `/trust.json.jws`,
 * `/index.md`, `/feed.xml` and `/badge.svg`, by rewriting it to the
 * canonical /trust/{projectSlug} routes. Every other host passes through.
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { notFound } from "../domain/errors.ts";
import { isCanonicalDomainName } from "../publish/domain_name.ts";
import { getDomainByName } from "../store/domains.ts";
import { getProject, getProjectByHostedSubdomain } from "../store/projects.ts";
import type { AppEnv } from "./env.ts";

const PATHS: Record<string, string> = {
  "/": "",
  "/trust.json": "/trust.json",
  "/trust.json.jws": "/trust.json.jws",
  "/index.md": ".md",
  "/index.html": ".html",
  "/feed.xml": "/feed.xml",
  "/badge.svg": "/badge.svg",
  "/badge.json": "/badge.json",
};

const IP_LITERAL = /^(\d{1,3}(\.\d{1,3}){3}|\[.*\])$/;
/** A Host header longer than a domain name (253) with a port can name no project. */
const MAX_HOST_HEADER = 253 + ":65535".length;

function hostname(value: string | undefined): string | null {
  if (!value || value.length > MAX_HOST_HEADER) return null;
  try {
    return new URL(`http://${value}`).hostname.replace(/\.$/, "");
  } catch {
    return null;
  }
}

/**
 * A predicate telling whether a Host header can only name the service
 * itself: its own hosts, IP literals, single labels and anything that is not
 * a valid domain name (custom domains and hosted subdomains are never those),
 * so no lookup is needed for it. This is what keeps the header, which any
 * client sets, from ever reaching a KV key unbounded.
 */
export function serviceHostTest(config: Config): (hostHeader: string | undefined) => boolean {
  const own = new Set([new URL(config.baseUrl).hostname, new URL(config.trustPageBase).hostname]);
  const seen = new Map<string, boolean>();
  return (hostHeader) => {
    if (!hostHeader) return true;
    // Few distinct Host values reach one instance: remember each verdict (bounded).
    const known = seen.get(hostHeader);
    if (known !== undefined) return known;
    const host = hostname(hostHeader);
    const verdict = !host || own.has(host) || !host.includes(".") || IP_LITERAL.test(host) ||
      !isCanonicalDomainName(host);
    if (seen.size < 1000 && hostHeader.length <= MAX_HOST_HEADER) seen.set(hostHeader, verdict);
    return verdict;
  };
}

/** Rewrites requests for project hosts; `fetch` is the app itself. */
export function hostRouting(
  config: Config,
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  const subdomainSuffix = `.${new URL(config.trustPageBase).hostname}`;
  const isServiceHost = serviceHostTest(config);
  return async (c, next) => {
    const header = c.req.header("host");
    if (isServiceHost(header) || (c.req.method !== "GET" && c.req.method !== "HEAD")) {
      // No project can own this host (custom domains are never IPs or single labels).
      return await next();
    }
    const host = hostname(header)!;
    const { kv } = c.var.services;
    let project = null;
    if (host.endsWith(subdomainSuffix)) {
      const label = host.slice(0, -subdomainSuffix.length);
      if (!label.includes(".")) project = await getProjectByHostedSubdomain(kv, label);
    }
    if (!project) {
      const domain = await getDomainByName(kv, host);
      if (domain?.verificationStatus === "verified") {
        project = await getProject(kv, domain.projectId);
      }
    }
    if (!project) return await next();
    const suffix = PATHS[c.req.path];
    if (suffix === undefined) throw notFound(`No document at ${c.req.path} on this trust page`);
    const target = new URL(`/trust/${encodeURIComponent(project.slug)}${suffix}`, config.baseUrl);
    const headers = new Headers(c.req.raw.headers);
    headers.set("host", target.host);
    return await fetch(new Request(target, { method: c.req.method, headers }), c.env);
  };
}
