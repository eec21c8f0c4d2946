/**
 * Custom domains and hosted subdomains: a request whose Host belongs to a
 * project is served that project's latest profile at `/`, `/trust.json`,
 * `/trust.json.jws`, `/index.md`, `/feed.xml` and `/badge.svg`, by
 * rewriting it to the canonical /trust/{projectSlug} routes (a custom domain that passed to
 * this publisher after a release adds that notice to its pages: src/serve/domain_notice.ts), its
 * security.txt at `/.well-known/security.txt`, the logos its pages show
 * at `/public/logos/`, and the service's icon at `/favicon.ico`. A deleted project's custom
 * domain answers 410, a hosted subdomain no project holds 404; every other host passes
 * through.
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
import { domainTag, withTag } from "../edge/tags.ts";
import { getTombstone } from "../store/deletions.ts";
import { goneResponse } from "./gone.ts";
import { identityRequestHeaders, pageNoticeOf, respondWithNotice } from "../serve/domain_notice.ts";

/** Rewrites requests for project hosts; `fetch` is the app itself. */
export function hostRouting(
  config: Config,
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
): MiddlewareHandler<AppEnv> {
  const isServiceHost = serviceHostTest(config);
  const projectOfHost = projectHostLookup(config);
  const pagesSuffix = `.${new URL(config.trustPageBase).hostname}`;
  const isHostedSubdomain = (host: string) =>
    host.endsWith(pagesSuffix) && !host.slice(0, -pagesSuffix.length).includes(".");
  return async (c, next) => {
    const header = c.req.header("host");
    if (isServiceHost(header) || (c.req.method !== "GET" && c.req.method !== "HEAD")) {
      // No project can own this host (custom domains are never IPs or single labels).
      return await next();
    }
    const host = hostname(header)!;
    const project = await projectOfHost(c.var.services.kv, host);
    if (!project) return await hostWithoutProject(c, host, isHostedSubdomain, next);
    // Logos are content-addressed and the same on every host: pages here show them; browsers
    // ask every host for its icon.
    if (c.req.path.startsWith("/public/logos/") || c.req.path === "/favicon.ico") {
      return await next();
    }
    if (c.req.path === "/.well-known/security.txt") {
      return await securityTxtOfHost(c, project, hostOrigin(config, host));
    }
    const path = canonicalTrustPath(project, c.req.path);
    if (path === null) throw notFound(`No document at ${c.req.path} on this trust page`);
    const target = new URL(path, config.baseUrl);
    // A custom domain that passed to this publisher after a release says so on its pages.
    // (A hosted subdomain is never a released name: only custom domains are looked up.)
    const notice = isHostedSubdomain(host)
      ? null
      : await pageNoticeOf(c.var.services.kv, project.organizationId, host, c.req.path);
    const headers = notice
      ? identityRequestHeaders(c.req.raw.headers)
      : new Headers(c.req.raw.headers);
    headers.set("host", target.host);
    // With a notice the page is read whole (a HEAD is answered from the same GET, bodiless).
    const method = notice ? "GET" : c.req.method;
    const page = await fetch(new Request(target, { method, headers }), c.env);
    const response = notice
      ? await respondWithNotice(c.req.raw, page, notice, c.var.services.artifacts)
      : page;
    if (!response.headers.has("surrogate-key")) return response;
    // What this host served is also purged by its own tag (the project's tag covers it too).
    const tagged = new Headers(response.headers);
    withTag(tagged, domainTag(host));
    return new Response(response.body, { status: response.status, headers: tagged });
  };
}

/**
 * A host no project holds now. A deleted project's verified custom domain (its tombstone,
 * until the operator releases it) answers 410 "was deleted", as the project's own pages do; a
 * hosted subdomain no project holds answers 404: neither is the service's own host, so neither
 * is answered by the service's routes (its dashboard on a vendor's former domain). Any other
 * host passes through.
 */
async function hostWithoutProject(
  c: Context<AppEnv>,
  host: string,
  isHostedSubdomain: (host: string) => boolean,
  next: () => Promise<void>,
): Promise<Response | void> {
  if (await getTombstone(c.var.services.kv, "domain", host)) {
    return goneResponse(c.req.raw, "project", { scheduled: false });
  }
  if (isHostedSubdomain(host)) throw notFound(`No trust page is served at ${host}`);
  return await next();
}

/** RFC 3986 host (a reg-name or an IP literal) with an optional port: all a Host may hold. */
const HOST_SYNTAX =
  /^(?:\[[0-9A-Za-z:._~!$&'()*+,;=-]+\]|(?:[0-9A-Za-z._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+)(?::\d*)?$/;

/**
 * The request with a URL that names the path the client asked for. Deno.serve builds
 * `request.url` as `http://` + the Host header + the request target, so a Host such as `a.1` (a
 * last label that is a number), `1.2.3.4.5` or `%` yields a URL that `new URL()` refuses (any
 * code that parses it, ours or a library's, would throw), and one such as `x/y`, `x?y` or `u@x`
 * moves part of the path elsewhere. Such a Host can name no project (see `serviceHostTest`),
 * so the request is answered as on the service's own host: the same method, headers (Host
 * included), body and request target, on `origin`.
 */
export function withParseableUrl(request: Request, origin: string): Request {
  const url = request.url;
  const host = request.headers.get("host") || null;
  const prefix = host === null
    ? -1
    : url.startsWith(`http://${host}`)
    ? 7 + host.length
    : url.startsWith(`https://${host}`)
    ? 8 + host.length
    : -1;
  // Without a Host, or with an absolute-form target, the URL does not come from the header.
  if ((prefix < 0 || HOST_SYNTAX.test(host!)) && URL.canParse(url)) return request;
  const start = prefix >= 0 ? prefix : url.indexOf("/", url.indexOf("//") + 2);
  const target = start < 0 || url[start] !== "/" ? "/" : url.slice(start);
  return new Request(`${origin}${target}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
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
