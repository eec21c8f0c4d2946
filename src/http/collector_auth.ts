/**
 * Authentication of collector calls: a collector secret or collector token,
 * an action the collector is allowed, and its own project only.
 */
import type { Context, MiddlewareHandler } from "hono";
import { authenticateCollector } from "../auth/collector.ts";
import type { CollectorAction } from "../domain/collector.ts";
import { forbidden, unauthorized } from "../domain/errors.ts";
import { bearerToken } from "./auth.ts";
import type { AppEnv } from "./env.ts";

/** Requires a valid collector credential allowed to do `action`; the handler never runs otherwise. */
export function requireCollector(action: CollectorAction): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const header = c.req.header("authorization");
    if (!header) throw unauthorized("A collector secret is required as a bearer token");
    const token = bearerToken(header);
    if (!token) throw unauthorized('The Authorization header must be "Bearer <secret>"');
    const { kv, config, clock, keys } = c.var.services;
    const collector = await authenticateCollector(
      { kv, config, clock, tokenKey: keys.tokens },
      token,
    );
    if (!collector.allowedActions.includes(action)) {
      throw forbidden(`This collector is not allowed to ${action.replace(":", " ")}`);
    }
    c.set("collector", collector);
    await next();
  };
}

/** A collector acts only on its own project. */
export function assertOwnProject(c: Context<AppEnv>, projectId: string): void {
  if (c.var.collector.projectId !== projectId) {
    throw forbidden("This collector belongs to another project");
  }
}
