/**
 * The collector CLI's errors, one class per exit status, and the status each one exits with.
 *
 * @module
 */

/** A mistake in the command line or the input files: exit status 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The service answered with an error status: exit status 1 (4xx) or 3 (5xx). */
export class ServiceError extends Error {
  override name = "ServiceError";
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The service could not be reached: exit status 3. */
export class NetworkError extends Error {
  override name = "NetworkError";
}

/** Stored, but the service could not read a document as its evidence type: exit status 4. */
export class NotUnderstoodError extends Error {
  override name = "NotUnderstoodError";
}

/** The exit status for an error thrown by `parseArgs` or `run`. */
export function exitStatus(error: unknown): number {
  if (error instanceof UsageError) return 2;
  if (error instanceof NotUnderstoodError) return 4;
  if (error instanceof ServiceError && error.status < 500) return 1;
  // A 5xx after the retries, a NetworkError, or anything unexpected.
  return 3;
}
