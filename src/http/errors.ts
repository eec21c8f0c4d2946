/**
 * The one place errors become responses: `{ error: { code, message } }`.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import { AppError, type ErrorCode } from "../domain/errors.ts";
import type { Logger } from "../lib/log.ts";

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "bad_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited",
};

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

/** The JSON error response for `code`, with `WWW-Authenticate` on 401s. */
export function errorResponse(error: AppError): Response {
  const headers = new Headers({ "content-type": "application/json", ...error.headers });
  if (error.status === 401 && !headers.has("www-authenticate")) {
    const description = error.message.replace(/["\\]/g, "'");
    headers.set(
      "WWW-Authenticate",
      `Bearer error="invalid_token", error_description="${description}"`,
    );
  }
  return new Response(JSON.stringify(errorBody(error.code, error.message)), {
    status: error.status,
    headers,
  });
}

/** Describes the first zod issue with the field it concerns. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  const field = issue.path.map(String).join(".");
  if (issue.code === "unrecognized_keys") {
    const prefix = field ? `${field}.` : "";
    return `Unknown field ${issue.keys.map((k) => `"${prefix}${k}"`).join(", ")}`;
  }
  return field ? `Field "${field}": ${issue.message}` : issue.message;
}

/** Validation hook for every route: a failed parse is a 400 `validation_failed`. */
export function validationHook(
  result: { success: boolean; error?: z.ZodError; target?: string },
  _c: Context,
) {
  if (!result.success && result.error) {
    throw new AppError("validation_failed", describeZodError(result.error));
  }
}

/** Maps anything thrown by a handler to the envelope; unknown errors are logged, never shown. */
export function handleError(error: unknown, log: Logger): Response {
  if (error instanceof AppError) {
    if (error.status >= 500) {
      const cause = error.cause instanceof Error
        ? `${error.cause.name}: ${error.cause.message}`
        : undefined;
      log.error(error.message, { cause });
    }
    return errorResponse(error);
  }
  if (error instanceof HTTPException) {
    const code = CODE_BY_STATUS[error.status] ?? (error.status >= 500 ? "internal" : "bad_request");
    const message = error.status >= 500 ? "Internal server error" : error.message || code;
    return errorResponse(new AppError(code as ErrorCode, message));
  }
  log.error("Unhandled error", {
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return errorResponse(new AppError("internal", "Internal server error"));
}
