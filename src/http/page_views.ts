/**
 * Anonymous page views of the trust centers (issue 35): every successful GET of a public page
 * (a trust center's `/public/trust/{orgSlug}…` or a project's `/trust/{projectSlug}…`, stored
 * or live) adds one to a counter of its path and UTC day. Nothing else is kept: no cookie is
 * set or read, no address, agent or referrer is stored. The instance counts in memory and
 * writes the counts (one KV sum per path and day) at most every ten seconds, by the request
 * that finds them due, so the hot path of a stored page reads nothing; a graceful stop (SIGINT,
 * SIGTERM: main.ts) writes what is left once no request runs.
 */
import type { MiddlewareHandler } from "hono";
import { countPageViews as writeCounts } from "../store/buyers.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getProjectBySlug } from "../store/projects.ts";
import type { AppEnv, Services } from "./env.ts";
import { memoKey } from "./memo.ts";

/** How often an instance writes its counts, at most. */
export const FLUSH_EVERY_MS = 10_000;
/** Most distinct (path, day) counters held before writing, whatever the time. */
const MAX_PENDING = 500;
const PAGE = /^\/(public\/trust|trust)\/([^/.]+)(?:\.(?:md|html))?(\/[^?]*)?$/;

class PageViewCounter {
  #pending = new Map<string, number>();
  #last = 0;
  constructor(private readonly kv: Deno.Kv) {}

  /** Counts one view; true when the counts are due to be written. */
  count(key: string, now: number): boolean {
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    if (this.#last === 0) this.#last = now;
    return this.#pending.size >= MAX_PENDING || now - this.#last >= FLUSH_EVERY_MS;
  }

  /** Writes every pending count under its organization. */
  async flush(now: number): Promise<void> {
    const pending = this.#pending;
    this.#pending = new Map();
    this.#last = now;
    const orgIds = new Map<string, string | null>();
    const counts: { orgId: string; day: string; path: string; n: number }[] = [];
    for (const [key, n] of pending) {
      const [kind, slug, day, path] = key.split("\n");
      const scope = `${kind}\n${slug}`;
      if (!orgIds.has(scope)) {
        const orgId = kind === "public/trust"
          ? (await getOrganizationBySlug(this.kv, slug))?.id
          : (await getProjectBySlug(this.kv, slug))?.organizationId;
        orgIds.set(scope, orgId ?? null);
      }
      const orgId = orgIds.get(scope);
      if (orgId) counts.push({ orgId, day, path, n });
    }
    await writeCounts(this.kv, counts);
  }
}

const COUNTER = memoKey<PageViewCounter>("page-view-counter");

function counterOf(services: Services): PageViewCounter {
  return services.memo(COUNTER, () => new PageViewCounter(services.kv));
}

/** Writes the instance's pending counts now (tests, shutdown). */
export function flushPageViews(services: Services): Promise<void> {
  return counterOf(services).flush(services.clock.now().getTime());
}

/**
 * The middleware: counts successful GETs of public pages after they are answered, except the
 * service's own renders of the pages it stores (src/edge/render.ts).
 */
export function countPageViews(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method !== "GET" || c.res.status !== 200) return;
    // The service rendering its own pages to store them is no visitor.
    if ((c.env as { edgeRender?: unknown } | undefined)?.edgeRender === true) return;
    const match = PAGE.exec(c.req.path);
    if (!match || (match[3] ?? "").startsWith("/buyer")) return;
    const { services } = c.var;
    const now = services.clock.now();
    const key = [match[1], match[2], now.toISOString().slice(0, 10), c.req.path].join("\n");
    const counter = counterOf(services);
    if (counter.count(key, now.getTime())) await counter.flush(now.getTime());
  };
}
