/**
 * Sending to the service: a POST with the collector secret, retried after network errors,
 * timeouts, 408, 429 and 5xx, and the one-line description of the service's error answer.
 *
 * @module
 */
import type { Options } from "./args.ts";
import { NetworkError, ServiceError } from "./errors.ts";

const REQUEST_TIMEOUT_MS = 60_000;
const MAX_RETRY_DELAY_MS = 60_000;

/** How long to wait before retry number `attempt` (1-based): Retry-After, else 1 s, 2 s, 4 s… */
export function retryDelayMs(attempt: number, retryAfter: string | null): number {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    const at = Date.parse(retryAfter);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Number.isNaN(at) ? NaN : at - Date.now();
    if (Number.isFinite(ms)) return Math.min(Math.max(0, ms), MAX_RETRY_DELAY_MS);
  }
  return Math.min(1000 * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
}

const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/**
 * POSTs `body` as JSON with the collector secret, retrying network errors, timeouts, 408,
 * 429 and 5xx (the same request, so a retried ingest is a replay the service recognizes).
 * Resolves with the status and parsed answer of a 2xx; throws ServiceError or NetworkError.
 */
export async function post(
  options: Pick<Options, "server" | "secret" | "retries">,
  path: string,
  body: unknown,
  extraHeaders: Record<string, string> = {},
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<{ status: number; json: unknown }> {
  const text = JSON.stringify(body);
  for (let attempt = 0;; attempt++) {
    let res: Response;
    try {
      res = await fetch(`${options.server}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${options.secret}`,
          "content-type": "application/json",
          accept: "application/json",
          ...extraHeaders,
        },
        body: text,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      if (attempt < options.retries) {
        await sleep(retryDelayMs(attempt + 1, null));
        continue;
      }
      throw new NetworkError(
        `Cannot reach ${options.server}: ${(error as Error).message} (after ${
          attempt + 1
        } attempts)`,
      );
    }
    const answer = await res.text();
    if (res.ok) {
      return { status: res.status, json: answer ? JSON.parse(answer) : null };
    }
    if (RETRIED_STATUSES.has(res.status) && attempt < options.retries) {
      await sleep(retryDelayMs(attempt + 1, res.headers.get("retry-after")));
      continue;
    }
    throw new ServiceError(res.status, describeError(res.status, answer));
  }
}

/** One line from the service's error envelope, or its status when there is none. */
function describeError(status: number, answer: string): string {
  try {
    const { error } = JSON.parse(answer);
    if (error?.message) {
      const details = error.details && Object.keys(error.details).length
        ? ` ${JSON.stringify(error.details)}`
        : "";
      return `${status} ${error.code ?? ""}: ${error.message}${details}`.replace(" :", ":");
    }
  } catch {
    // not the envelope: fall through
  }
  return `${status} ${answer.slice(0, 200)}`.trim();
}
