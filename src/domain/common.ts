/**
 * Shared primitives of the typed contract (SPEC.md "General conventions").
 */
import { z } from "@hono/zod-openapi";
import "./messages.ts";

/**
 * RFC 3339 timestamp; offsets are accepted on input and normalized to UTC by `toUtc`. The
 * length bound stops fractions of any length (RFC 3339 sets none; 64 leaves nanoseconds room).
 */
export const DateTime = z.iso.datetime({ offset: true }).max(64);
/** A UUID; the bound says in the schema what the format already implies. */
export const Uuid = z.uuid().max(36);

/** Version of the API contract, in /openapi.json and the MCP server's identity. */
export const API_VERSION = "1.0.0";

/** Longest free-text name accepted anywhere (organization, project, collector names). */
export const MAX_NAME_LENGTH = 200;

/**
 * C0 and C1 control characters (CR, LF and tab included), DEL, and the Unicode line and
 * paragraph separators. Names and titles reach email subjects and headers, where a line break
 * would start another header, so none may hold one.
 */
// deno-lint-ignore no-control-regex -- exactly what names may not hold
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Whether `text` holds a control character (see CONTROL_CHARACTER). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** One line of text, 1..`max` characters after trimming, without control characters. */
export function oneLine(max: number) {
  return z.string().trim().min(1).max(max).refine(
    (text) => !hasControlCharacter(text),
    "Must be one line without control characters",
  );
}

/** An organization, project or collector name. */
export const Name = oneLine(MAX_NAME_LENGTH);

/** A DNS-label-like slug: lowercase letters, digits and inner hyphens, 1..63 characters. */
export const Slug = z.string().max(63).regex(
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
  "Must be 1-63 lowercase letters, digits or inner hyphens",
);

export const ApiError = z.object({
  error: z.object({
    code: z.string().openapi({ example: "validation_failed" }),
    message: z.string().openapi({ example: 'Field "name": Required' }),
  }),
}).openapi("ApiError");

export const HealthStatus = z.object({ status: z.literal("ok") }).openapi("HealthStatus");

/** Normalizes an RFC 3339 timestamp with any offset to `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export function toUtc(value: string): string {
  return new Date(value).toISOString();
}

/** Path parameter schema for a UUID named `name`, documented in OpenAPI. */
export function uuidParam<const N extends string>(name: N) {
  return z.uuid().max(36).openapi({
    param: { name, in: "path" },
    example: "3f1c9a52-8d4e-4b7a-9c2e-5a6b7c8d9e0f",
  });
}

/** Turns a free-text name into a slug candidate (may be empty for names without letters). */
export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|(?<!-)-+$/g, "")
    .slice(0, 63)
    .replace(/(?<!-)-+$/g, "");
}
