/**
 * Purge drivers: how tagged responses leave the edge once the pages behind them changed.
 * `deno`: Deno Deploy's CDN API, `POST http://cache.localhost/invalidate/http` with
 * `{"tags": [...]}` (global, within seconds). `xkey`: Varnish with the xkey module, a `PURGE`
 * to each configured URL with the tags in `xkey-purge` (deploy/varnish/default.vcl). A purge
 * that is not acknowledged (network error or a non-2xx answer) throws, so the job that asked
 * for it runs again with backoff and the live status shows the failure.
 */
import type { EdgeConfig } from "../config.ts";

/** Deno Deploy's purge endpoint. */
export const DENO_PURGE_URL = "http://cache.localhost/invalidate/http";
/** How long one purge request may take. */
const PURGE_TIMEOUT_MS = 10_000;
/** Tags per request: Deno Deploy's API takes lists; one change purges a handful. */
const TAGS_PER_REQUEST = 100;

export interface Purger {
  /** Which driver runs (`none`: nothing is purged, because nothing keeps pages). */
  readonly kind: EdgeConfig["purge"];
  /** Purges every response tagged with any of `tags`; throws unless acknowledged. */
  purge(tags: readonly string[]): Promise<void>;
}

async function acknowledged(response: Response, where: string): Promise<void> {
  const text = await response.text().catch(() => "");
  if (!response.ok) {
    throw new Error(`The purge at ${where} answered ${response.status}: ${text.slice(0, 200)}`);
  }
}

export function createPurger(config: EdgeConfig, fetchImpl: typeof fetch = fetch): Purger {
  const send = async (tags: readonly string[]) => {
    for (let i = 0; i < tags.length; i += TAGS_PER_REQUEST) {
      const batch = tags.slice(i, i + TAGS_PER_REQUEST);
      if (config.purge === "deno") {
        const response = await fetchImpl(DENO_PURGE_URL, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ tags: batch }),
          signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
        });
        await acknowledged(response, "Deno Deploy's CDN");
      } else if (config.purge === "xkey") {
        await Promise.all(config.purgeUrls.map(async (url) => {
          const response = await fetchImpl(url, {
            method: "PURGE",
            headers: { "xkey-purge": batch.join(" ") },
            signal: AbortSignal.timeout(PURGE_TIMEOUT_MS),
          });
          await acknowledged(response, new URL(url).host);
        }));
      }
    }
  };
  return {
    kind: config.purge,
    async purge(tags) {
      if (config.purge === "none" || tags.length === 0) return;
      await send([...new Set(tags)]);
    },
  };
}
