/**
 * The operator dashboard: its page at /dashboard/ (a script-only shell whose
 * modules live under /static/dashboard/), served with a strict Content
 * Security Policy, plus the small configuration document it reads to start
 * an OAuth sign-in.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { dashboardRedirectUri } from "../../auth/builtin/clients.ts";
import type { Config } from "../../config.ts";
import { createRouter } from "../env.ts";
import { memoKey } from "../memo.ts";
import { json } from "../openapi.ts";
import { loadStaticFiles, serveStatic } from "../static_files.ts";

export const dashboardRoutes = createRouter();

const DASHBOARD_DIR = new URL("../../../static/dashboard/", import.meta.url);

const DashboardConfig = z.object({
  authMode: z.enum(["builtin", "oidc"]),
  clientId: z.string(),
  redirectUri: z.string(),
  issuer: z.string(),
  authorizationServerMetadata: z.string().openapi({
    description: "Where the authorization and token endpoints are announced (RFC 8414)",
  }),
  signup: z.enum(["first-run", "open", "invite"]).nullable(),
  scope: z.string(),
  trustPageBase: z.string().openapi({
    description: "Public trust-page host; hosted subdomains are `<hostedSubdomain>.<its host>`",
  }),
  customDomains: z.object({
    cnameTarget: z.string().nullable().openapi({
      description:
        "The host a custom domain's CNAME record points at (TRUST_PAGE_BASE's host); null when that host is an IP address or localhost, which a CNAME cannot name",
    }),
    tls: z.enum(["deno-deploy", "reverse-proxy"]).openapi({
      description:
        "Who provides HTTPS for a custom domain: Deno Deploy's custom domains, or the reverse proxy in front of the service",
    }),
  }),
  mail: z.boolean().openapi({
    description:
      "Whether the service sends email (SMTP_URL or SES_REGION set): owners' notices of access requests and buyers' access links. Without it the dashboard says so and shows the links to send by hand.",
  }),
  storage: z.object({ writable: z.boolean(), action: z.string().nullable() }).nullable().openapi({
    description:
      "On Deno Deploy, whether the KV is proven to persist (docs/deploy.md) and what to do when it is not; null where no probe runs. The dashboard shows a banner when it is not writable.",
  }),
}).openapi("DashboardConfig");

/** Where a custom domain points, and who terminates its TLS. */
export function customDomainSetup(config: Config) {
  const host = new URL(config.trustPageBase).hostname;
  const unnamed = host === "localhost" || host.endsWith(".localhost") ||
    /^[\d.]+$/.test(host) || host.startsWith("[");
  return {
    cnameTarget: unnamed ? null : host,
    tls: config.onDeploy ? "deno-deploy" as const : "reverse-proxy" as const,
  };
}

/**
 * Response headers of the dashboard page. The page runs only its own modules
 * and talks only to this origin, plus the identity provider's when it lives
 * elsewhere (oidc mode, or AUTH_URL), because the browser calls its token
 * endpoint. Trusted Types with no policy make any HTML string sink throw.
 */
export function dashboardHeaders(config: Config): Record<string, string> {
  const self = new URL(config.baseUrl).origin;
  const idp = new Set(
    [config.auth.issuer, config.auth.authUrl].map((u) => new URL(u).origin).filter((o) =>
      o !== self
    ),
  );
  const csp = [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self'${[...idp].map((o) => ` ${o}`).join("")}`,
    "img-src 'self' data:",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
  return {
    "content-security-policy": csp,
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
    "cache-control": "no-cache",
  };
}

const PAGE_FILES = memoKey<ReturnType<typeof loadStaticFiles>>("dashboard page");

dashboardRoutes.get("/dashboard", (c) => c.redirect("/dashboard/", 301));
// The same file is under /static/*, where it would run without this policy.
dashboardRoutes.get("/static/dashboard/index.html", (c) => c.redirect("/dashboard/", 301));

dashboardRoutes.get("/dashboard/", async (c) => {
  const { config, memo } = c.var.services;
  const pageFiles = await memo(PAGE_FILES, () => loadStaticFiles(DASHBOARD_DIR));
  return serveStatic(c, pageFiles, "index.html", dashboardHeaders(config)) ?? c.notFound();
});

dashboardRoutes.openapi(
  createRoute({
    method: "get",
    path: "/dashboard/config.json",
    operationId: "getDashboardConfig",
    tags: ["Service"],
    summary: "Sign-in settings for the dashboard (public OAuth client with PKCE)",
    responses: { 200: json(DashboardConfig, "Client id, redirect URI and issuer") },
  }),
  async (c) => {
    const { config } = c.var.services;
    const builtin = config.auth.mode === "builtin";
    const storage = await c.var.services.storage?.check();
    c.header("Cache-Control", "no-cache");
    return c.json({
      authMode: config.auth.mode,
      clientId: config.auth.clientId,
      redirectUri: dashboardRedirectUri(config),
      issuer: config.auth.issuer,
      authorizationServerMetadata: `${config.baseUrl}/.well-known/oauth-authorization-server`,
      signup: builtin ? config.signup : null,
      scope: builtin ? "api" : "openid email profile",
      trustPageBase: config.trustPageBase,
      customDomains: customDomainSetup(config),
      mail: config.mail !== null,
      storage: storage ? { writable: storage.writable, action: storage.action } : null,
    }, 200);
  },
);
