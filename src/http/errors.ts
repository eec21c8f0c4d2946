/**
 * The one place errors become responses: `{ error: { code, message } }`.
 */
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { z } from "zod";
import { AppError, type ErrorCode } from "../domain/errors.ts";
import { html } from "../lib/html.ts";
import type { Logger } from "../lib/log.ts";
import { pageHeaders, renderPage } from "./html.ts";
import { htmlNotFoundResponse, wantsHtmlPage } from "./html_not_found.ts";

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

/** The RFC 6749 §5.2 `error` code for an API error at an OAuth endpoint. */
function oauthCode(error: AppError): string {
  if (error.status === 401) return "invalid_client";
  if (error.status >= 500) return "server_error";
  return "invalid_request";
}

/**
 * Endpoints whose clients cannot read the envelope: OAuth clients parse RFC 6749 §5.2
 * errors, and the sign-in and sign-up forms are pages a browser shows. Every error there,
 * including those raised before the handler (body limit, media type, validation), takes
 * that endpoint's shape, as /openapi.json documents.
 */
const ERROR_SHAPES: Record<string, (error: AppError) => Response> = {
  "/oauth2/token": oauthErrorResponse,
  "/oauth2/revoke": oauthErrorResponse,
  "/oauth2/authorize": htmlErrorResponse,
  "/oauth2/authorize/email-link": htmlErrorResponse,
  "/signup": htmlErrorResponse,
};

/** The error shape of the endpoint at `path`, if it is not the envelope. */
function errorShapeOf(path: string): ((error: AppError) => Response) | undefined {
  // Emailed sign-in links are opened in a browser: their errors are pages too.
  if (path.startsWith("/oauth2/sign-in-link/")) return htmlErrorResponse;
  return ERROR_SHAPES[path];
}

/** An error in the RFC 6749 §5.2 shape, never cached (§5.1). */
export function oauthErrorResponse(error: AppError): Response {
  const body = { error: oauthCode(error), error_description: error.message };
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { ...error.headers, "content-type": "application/json", "cache-control": "no-store" },
  });
}

/** An error as a small page, for the endpoints a browser submits forms to. */
export function htmlErrorResponse(error: AppError): Response {
  const body = html`
    <h1>Request problem</h1>
    <p class="error" role="alert">${error.message}</p>
  `;
  return new Response(renderPage("Request problem", body), {
    status: error.status,
    headers: { ...error.headers, ...pageHeaders() },
  });
}

/** Any thrown value as an AppError; unknown errors are logged, never shown. */
function toAppError(error: unknown, log: Logger): AppError {
  if (error instanceof AppError) {
    if (error.status >= 500) {
      const cause = error.cause instanceof Error
        ? `${error.cause.name}: ${error.cause.message}`
        : undefined;
      log.error(error.message, { cause });
    }
    return error;
  }
  if (error instanceof HTTPException) {
    const code = CODE_BY_STATUS[error.status] ?? (error.status >= 500 ? "internal" : "bad_request");
    const message = error.status >= 500 ? "Internal server error" : error.message || code;
    return new AppError(code as ErrorCode, message);
  }
  log.error("Unhandled error", {
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
  return new AppError("internal", "Internal server error");
}

/** Where an error happened: the endpoint's path, and the request when a page may answer. */
export interface ErrorContext {
  path?: string;
  /** With `baseUrl`: a 404 to a browser is a page (see html_not_found.ts). */
  request?: Request;
  baseUrl?: string;
}

/**
 * Maps anything thrown to the envelope, or to the shape of the endpoint at `path` where its
 * clients expect another one (ERROR_SHAPES); a 404 a browser asked for is an HTML page.
 */
export function handleError(error: unknown, log: Logger, options: ErrorContext = {}) {
  const appError = toAppError(error, log);
  const shape = options.path === undefined ? undefined : errorShapeOf(options.path);
  if (
    shape === undefined && appError.status === 404 && options.request &&
    options.baseUrl !== undefined && wantsHtmlPage(options.request)
  ) {
    return htmlNotFoundResponse(appError, options.baseUrl);
  }
  return (shape ?? errorResponse)(appError);
}
