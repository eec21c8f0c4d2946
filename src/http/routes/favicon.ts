/**
 * GET /favicon.ico: the service's icon (the dashboard's shield, 32 × 32, PNG inside ICO), on
 * every host, custom domains and hosted subdomains included. Browsers ask for it by
 * themselves on every page that names no icon, the trust pages among them; answering it
 * spares each page a 404 in the console, and the trust pages' CSP needs no `img-src` for it,
 * since they never reference it. Cached for 30 days: the icon changes with a release, if ever.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../env.ts";
import { memoKey } from "../memo.ts";
import { loadStaticFile, serveFile, type StaticFile } from "../static_files.ts";

export const faviconRoutes = createRouter();

const ICON = new URL("../../../static/favicon.ico", import.meta.url);
const FILE = memoKey<Promise<StaticFile>>("favicon");
/** Thirty days, in seconds. */
export const FAVICON_MAX_AGE = 30 * 24 * 3600;

faviconRoutes.openapi(
  createRoute({
    method: "get",
    path: "/favicon.ico",
    operationId: "getFavicon",
    tags: ["Service"],
    summary: "The service's icon",
    responses: {
      200: {
        content: { "image/x-icon": { schema: z.string().openapi({ format: "binary" }) } },
        description: "The icon (ICO holding a 32 × 32 PNG), cached for 30 days",
      },
      304: { description: "Not modified (If-None-Match)" },
    },
  }),
  async (c) => {
    const icon = await c.var.services.memo(FILE, () => loadStaticFile(ICON));
    return serveFile(c, icon, { "cache-control": `public, max-age=${FAVICON_MAX_AGE}` });
  },
);
