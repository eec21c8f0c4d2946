/**
 * Drops the composed latest trust pages (src/serve/live_pages.ts) after every successful write
 * through this instance: updates, documents, subprocessors, settings and anything else a live
 * section may show, without each route having to remember it.
 */
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./env.ts";

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

export const dropLivePagesAfterWrites: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!READS.has(c.req.method) && c.res.status < 400) c.var.services.livePages.invalidate();
};
