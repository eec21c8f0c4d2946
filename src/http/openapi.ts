/**
 * Small helpers that keep route definitions short and their OpenAPI
 * description complete: JSON bodies, error responses, security.
 */
import { z } from "@hono/zod-openapi";
import type { TypedResponse } from "hono";
import type { JSONParsed } from "hono/utils/types";
import { ApiError } from "../domain/common.ts";

/** A JSON response (or request) content entry. */
export function json<T extends z.ZodType>(schema: T, description: string) {
  return { content: { "application/json": { schema } }, description };
}

/** A required JSON request body; other media types get 415. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** An optional JSON request body: none at all reads as `{}`; other media types get 415. */
export function optionalJsonBody<T extends z.ZodType>(schema: T) {
  return { required: false, content: { "application/json": { schema } } };
}

/** What each error status means, for every operation's error responses. */
export const ERROR_DESCRIPTIONS = {
  400:
    "bad_request: the body cannot be read (malformed JSON, nested too deep, a non-finite number, an empty upload) or asks what the resource does not offer; validation_failed: a path, query or body field is refused, by its schema or by what is stored (a cursor not handed out, a reference outside the organization, dates out of order)",
  401: "The bearer token is missing or invalid",
  403: "The caller has no access to this resource",
  404: "The resource does not exist",
  408: "The request body did not arrive in time",
  409: "The request conflicts with existing data",
  410: "gone: the project or organization was deleted (or its deletion is scheduled) by its owner",
  413: "The request body is too large",
  415: "The request body's media type is not the documented one",
  422:
    "unprocessable: the file is of the right type but cannot be used (malformed, or no question column); nothing was stored",
  429: "Too many requests; see Retry-After",
  500: "The operation failed; nothing was changed",
  503: "The instance is busy with bounded work; retry after Retry-After seconds",
} as const;

/** What a 304 answer means, wherever a conditional GET can get one. */
export const NOT_MODIFIED = "Not modified (If-None-Match)";

/** The security requirement of operations anyone may call. */
export const PUBLIC: Array<Record<string, string[]>> = [];

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

/**
 * Error responses in the API's envelope for the given statuses. A 404 is also documented
 * as an HTML page: what a browser (Accept preferring text/html, or a `.html` path) gets.
 */
export function errors<const S extends ErrorStatus>(...statuses: S[]) {
  return Object.fromEntries(
    statuses.map((status) => {
      const response = json(ApiError, ERROR_DESCRIPTIONS[status]);
      if (status !== 404) return [status, response];
      const page = { schema: z.string().openapi({ description: "A page saying what is missing" }) };
      return [status, {
        description: `${response.description}; browsers get the same 404 as an HTML page`,
        content: { ...response.content, "text/html": page },
      }];
    }),
  ) as { [K in S]: ReturnType<typeof json<typeof ApiError>> };
}

/** Security requirement for routes that take a human access token. */
export const HUMAN = [{ humanBearer: [] }];
/** Security requirement for routes that take a collector secret or collector token. */
export const COLLECTOR = [{ collectorBearer: [] }];

/**
 * Declares that `response` carries the route's documented JSON body (`schema`, status 200),
 * for answers whose bytes were not built by `c.json`: stored documents served as published.
 * The response is returned as it is; only its type gains what the route's handler type asks.
 */
export function documentedJson<T extends z.ZodType>(
  _schema: T,
  response: Response,
): Response & TypedResponse<JSONParsed<z.infer<T>>, 200, "json"> {
  return response as Response & TypedResponse<JSONParsed<z.infer<T>>, 200, "json">;
}
