/**
 * Error answers that caches handle right. A shared cache (the CDN in front, DESIGN §14) may keep
 * any answer whose headers do not forbid it, and a 404 or 410 kept there outlives the data it
 * describes (a project created, a deletion undone). So every 4xx and 5xx leaves here with
 * `Cache-Control: no-store` (the platform-specific CDN headers removed, since they would override
 * it), and an error to a GET varies by Accept and Accept-Encoding: the routes negotiate both for
 * their 200s, and the same URL answers a browser's 404 as a page and an API client's as JSON.
 */
import type { MiddlewareHandler } from "hono";

/** Headers that tell a CDN more than Cache-Control does; an error must not carry them. */
const CDN_HEADERS = ["cdn-cache-control", "deno-cdn-cache-control", "surrogate-control"];
const NEGOTIATED = ["Accept", "Accept-Encoding"];

/** `vary` with every header of `names` in it (kept in its order, the missing ones appended). */
export function varyWith(vary: string | null, names: readonly string[]): string {
  const tokens = (vary ?? "").split(",").map((token) => token.trim()).filter(Boolean);
  if (tokens.includes("*")) return "*";
  const lower = new Set(tokens.map((token) => token.toLowerCase()));
  for (const name of names) if (!lower.has(name.toLowerCase())) tokens.push(name);
  return tokens.join(", ");
}

/** The middleware: outermost, so it sees every error answer, the error handler's included. */
export function cacheSafeErrors(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const response = c.res;
    if (response.status < 400) return;
    const headers = new Headers(response.headers);
    headers.set("cache-control", "no-store");
    for (const name of CDN_HEADERS) headers.delete(name);
    headers.delete("surrogate-key");
    const method = c.req.method;
    if (method === "GET" || method === "HEAD") {
      headers.set("vary", varyWith(headers.get("vary"), NEGOTIATED));
    }
    c.res = undefined as unknown as Response;
    c.res = new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
