/**
 * Domain errors. Every layer throws these; the HTTP layer maps them to the
 * `{ error: { code, message } }` envelope in one place (`src/http/errors.ts`).
 */

/** The stable `error.code` values of the API, with the HTTP status each one carries. */
export const ERROR_STATUS = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  /** A file of the right type whose content cannot be used (a questionnaire without questions). */
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** An error whose message is safe to show to the caller. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: (typeof ERROR_STATUS)[ErrorCode];
  /** Extra response headers, e.g. `Retry-After` for `rate_limited`. */
  readonly headers: Record<string, string>;

  /** `cause` is logged for `internal` errors and never shown to the caller. */
  constructor(
    code: ErrorCode,
    message: string,
    headers: Record<string, string> = {},
    cause?: unknown,
  ) {
    super(message, { cause });
    this.name = "AppError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.headers = headers;
  }
}

export const badRequest = (message: string) => new AppError("bad_request", message);
export const validationFailed = (message: string) => new AppError("validation_failed", message);
export const unauthorized = (message = "A valid bearer token is required") =>
  new AppError("unauthorized", message);
export const forbidden = (message = "You do not have access to this resource") =>
  new AppError("forbidden", message);
export const notFound = (message = "Not found") => new AppError("not_found", message);
export const conflict = (message: string) => new AppError("conflict", message);
/** What was here was deleted (or is being deleted) by its owner. */
export const gone = (message: string) => new AppError("gone", message);
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new AppError("rate_limited", message, { "Retry-After": String(Math.ceil(retryAfterSeconds)) });
/** The instance is busy with bounded work (for example stamping PDFs); retry later. */
export const unavailable = (message: string, retryAfterSeconds: number) =>
  new AppError("unavailable", message, { "Retry-After": String(Math.ceil(retryAfterSeconds)) });
