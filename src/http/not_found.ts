/**
 * The answer for a request no route took: 405 with `Allow` when the path exists for
 * other methods (HEAD wherever GET is), else 404, both in the error envelope (a 404 a
 * browser asked for is a page).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { NotFoundHandler } from "hono";
import { AppError } from "../domain/errors.ts";
import type { Logger } from "../lib/log.ts";
import type { AppEnv } from "./env.ts";
import { handleError } from "./errors.ts";

/**
 * Route patterns of `app`, as regular expressions with their methods (exported for the test
 * that runs the super-linear-regex checker over these built patterns too).
 */
export function routeTable(app: OpenAPIHono<AppEnv>) {
  const table = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const route of app.routes) {
    if (route.method === "ALL") continue;
    const entry = table.get(route.path) ?? {
      pattern: new RegExp(
        `^${route.path.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+")}$`,
      ),
      methods: new Set<string>(),
    };
    entry.methods.add(route.method);
    table.set(route.path, entry);
  }
  return [...table.values()];
}

/** The not-found handler of `app`; its route table is built on first use, once all are mounted. */
export function notFoundHandler(
  app: OpenAPIHono<AppEnv>,
  options: { log: Logger; baseUrl: string },
): NotFoundHandler<AppEnv> {
  const { log, baseUrl } = options;
  let routes: ReturnType<typeof routeTable> | undefined;
  return (c) => {
    routes ??= routeTable(app);
    const allowed = new Set<string>();
    for (const route of routes) {
      if (route.pattern.test(c.req.path)) route.methods.forEach((m) => allowed.add(m));
    }
    if (allowed.size === 0) {
      return handleError(
        new AppError("not_found", `No route for ${c.req.method} ${c.req.path}`),
        log,
        { request: c.req.raw, baseUrl },
      );
    }
    if (allowed.has("GET")) allowed.add("HEAD");
    return handleError(
      new AppError("method_not_allowed", `Method ${c.req.method} is not allowed on ${c.req.path}`, {
        Allow: [...allowed].sort().join(", "),
      }),
      log,
    );
  };
}
