/**
 * CORS for public reads: the trust pages and documents (/trust/*, /public/*),
 * the publication log (/log, /log.json, /log.html, /log.md, /log/*),
 * discovery (/.well-known/*, /openapi.json, /llms.txt, the guides), and MCP,
 * so a browser app on any origin can read them and revalidate with
 * If-None-Match. Everything else (the operator API, OAuth, sign-up) answers
 * no CORS headers, so browsers keep other origins out of it; its preflights
 * fall through to the router's 404/405.
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config.ts";
import { serviceHostTest } from "../serve/hosts.ts";
import { PUBLIC_CORS_HEADERS } from "../serve/headers.ts";
import type { AppEnv } from "./env.ts";

const PUBLIC_READ =
  /^\/(?:trust\/|public\/|log(?:\/|\.(?:json|html|md)$|$)|\.well-known\/|docs\/|openapi\.json$|llms\.txt$|mcp(?:\/server-card)?$|agent-instructions(?:\.md)?$|setup(?:\.md)?$)/;

const READ_HEADERS = "Accept, If-None-Match, If-Modified-Since";
const MCP_HEADERS = `${READ_HEADERS}, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version`;
/** The server-card draft lists Content-Type among the headers a card's preflight allows. */
const SERVER_CARD_HEADERS = `${READ_HEADERS}, Content-Type`;
/** Browsers may cache a preflight answer this long (they cap it themselves: 2 h in Chromium). */
const MAX_AGE_SECONDS = "86400";

/** Whether `path` on `host` is a public read (custom domains serve nothing else). */
export function isPublicRead(path: string, onServiceHost: boolean): boolean {
  return !onServiceHost || PUBLIC_READ.test(path);
}

/**
 * Answers preflights of public reads (204) and adds `Access-Control-Allow-Origin: *` to
 * their responses. No credentials are involved: public reads take none, and `*` keeps
 * browsers from sending cookies or Authorization on them.
 */
export function publicCors(config: Config): MiddlewareHandler<AppEnv> {
  const isServiceHost = serviceHostTest(config);
  return async (c, next) => {
    if (!isPublicRead(c.req.path, isServiceHost(c.req.header("host")))) return await next();
    if (c.req.method === "OPTIONS") {
      const mcp = c.req.path === "/mcp";
      return c.body(null, 204, {
        ...PUBLIC_CORS_HEADERS,
        "access-control-allow-methods": mcp ? "GET, HEAD, POST" : "GET, HEAD",
        "access-control-allow-headers": mcp
          ? MCP_HEADERS
          : c.req.path === "/mcp/server-card"
          ? SERVER_CARD_HEADERS
          : READ_HEADERS,
        "access-control-max-age": MAX_AGE_SECONDS,
        allow: mcp ? "GET, HEAD, POST, OPTIONS" : "GET, HEAD, OPTIONS",
      });
    }
    await next();
    for (const [name, value] of Object.entries(PUBLIC_CORS_HEADERS)) c.header(name, value);
  };
}
