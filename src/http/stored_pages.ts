/**
 * The request path of public pages: stored bytes. A GET of a stored URL (src/domain/stored_urls.ts)
 * without a query string is answered from the record of its path, format (Accept) and coding
 * (Accept-Encoding) when that record is current, that is when the generations of its group
 * (src/domain/stored_urls.ts) it was rendered at are still the latest ones. Between a change's commit and its re-render (milliseconds on a
 * running instance, until the next cron tick on an idle one) the route answers live instead,
 * so the origin never answers older than the last committed change.
 *
 * Every answer on these URLs, stored or live, carries the edge's tags when a purge driver is
 * configured; a public answer elsewhere gets `CDN-Cache-Control: no-store`, because nothing
 * would purge it (generic shared caches still see the specification's `s-maxage=300`).
 *
 * A stored answer is also kept in memory, built once and answered with `clone()` before routing
 * (the hot path of a busy page costs no KV read): dropped at once by every commit of this
 * instance that stages a job (each change to public data stages its render), and after one
 * second otherwise, for renders on other instances. Such a render purges the edge twice, the
 * second time 2 s later (src/edge/mod.ts), so an answer this instance gave from memory in that
 * second does not stay at the edge.
 */
import type { MiddlewareHandler } from "hono";
import { type BlobStore, parseBlobKey } from "../blobs/mod.ts";
import type { EdgeConfig } from "../config.ts";
import {
  type Coding,
  encodedEtag,
  isCompressible,
  negotiateCoding,
  varyWithEncoding,
} from "../lib/content_coding.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { getProjectBySlug } from "../store/projects.ts";
import { type ArtifactCache, ifNoneMatchHits } from "../serve/artifacts.ts";
import type { AppEnv } from "./env.ts";
import { formatOfAccept } from "./negotiation.ts";
import {
  dependencies,
  pageKey,
  signature,
  type StoredCoding,
  type StoredPage,
  type Variant,
} from "../store/edge_pages.ts";
import { edgeHeaders, pageTags } from "../edge/tags.ts";
import { storedScopeOf } from "../domain/stored_urls.ts";
import { onJobsCommitted } from "../store/jobs.ts";
import { serviceHostTest } from "../serve/hosts.ts";
import type { Config } from "../config.ts";

/** A version's documents: immutable, kept in memory once answered. */
const VERSIONED = /^\/trust\/[^/]+\/versions\/\d+\/[^/]+$/;

/** Longest path looked up among stored pages (KV keys are at most 2 KiB). */
const MAX_STORED_PATH = 512;

export interface StoredLayerDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  artifacts: ArtifactCache;
  config: Config;
}

/** How long an answer is kept in memory without a local commit dropping it. */
const MEMORY_TTL_MS = 1000;
/** Answers and bytes kept in memory at most (then everything is dropped at once). */
const MEMORY_ENTRIES = 2000;
const MEMORY_BYTES = 64 * 1024 * 1024;

/** A stored answer in memory: 200 and 304, built once. */
interface Remembered {
  at: number;
  generation: number;
  etag: string;
  ok: Response;
  notModified: Response;
  bytes: number;
}

/** The stored layer of one app: the middleware, the pre-routing fast path, the memory. */
export interface StoredPages {
  middleware: MiddlewareHandler<AppEnv>;
  /** The answer to `request` from memory, or null to route it (always null for a render). */
  fastPath(request: Request, env?: unknown): Response | null;
  /** Forgets every answer kept in memory. */
  invalidate(): void;
  /** Stops listening to this instance's commits. */
  close(): void;
}

function isRender(env: unknown): boolean {
  return typeof env === "object" && env !== null &&
    (env as { edgeRender?: unknown }).edgeRender === true;
}

/** The record to answer with: the preferred coding of `any`, then of the format, then identity. */
function pick(
  entries: Deno.KvEntryMaybe<StoredPage>[],
): { record: StoredPage; coding: Coding | null } | null {
  for (const entry of entries) {
    if (entry.value) {
      const coding = entry.key[3] as StoredCoding;
      return { record: entry.value, coding: coding === "identity" ? null : coding };
    }
  }
  return null;
}

/** The key of an answer in memory: path, format and coding. */
function memoryKey(path: string, variant: Variant, coding: Coding | null): string {
  return `${variant} ${coding ?? "identity"} ${path}`;
}

export function createStoredPages(deps: StoredLayerDeps): StoredPages {
  const { kv } = deps;
  const memory = new Map<string, Remembered>();
  let memoryBytes = 0;
  let generation = 0;
  const invalidate = () => {
    generation++;
    memory.clear();
    memoryBytes = 0;
  };
  const unlisten = onJobsCommitted(invalidate);
  const isServiceHost = serviceHostTest(deps.config);

  function remember(key: string, response: Response, etag: string, bytes: number) {
    if (memory.size >= MEMORY_ENTRIES || memoryBytes + bytes > MEMORY_BYTES) {
      memory.clear();
      memoryBytes = 0;
    }
    const headers = new Headers(response.headers);
    headers.delete("content-type");
    headers.delete("content-encoding");
    const notModified = new Response(null, { status: 304, headers });
    memory.set(key, { at: performance.now(), generation, etag, ok: response, notModified, bytes });
    memoryBytes += bytes;
  }

  function fromMemory(request: Request, path: string): Response | null {
    const variant = formatOfAccept(request.headers.get("accept") ?? "");
    const wanted = negotiateCoding(request.headers.get("accept-encoding"), ["br", "gzip"]);
    const hit = memory.get(memoryKey(path, variant, wanted));
    if (!hit || hit.generation !== generation || performance.now() - hit.at >= MEMORY_TTL_MS) {
      return null;
    }
    return ifNoneMatchHits(request.headers.get("if-none-match"), hit.etag)
      ? hit.notModified.clone()
      : hit.ok.clone();
  }

  /** The body of a record: inline, or its blob through the app's cache of immutable bytes. */
  async function bodyOf(record: StoredPage): Promise<Uint8Array | null> {
    if (record.body) return record.body;
    const artifact = { key: record.blob!, digest: parseBlobKey(record.blob!).sha256 };
    // A blob gone missing is answered live rather than failed.
    return await deps.artifacts.bytes(deps.blobs, artifact).catch(() => null);
  }

  /** The tags of a URL answered live: from its project's or organization's slug, and group. */
  async function tagsOf(
    scope: { kind: "project" | "center"; slug: string; group: { name: string } },
  ): Promise<string[]> {
    if (scope.kind === "project") {
      const project = await getProjectBySlug(kv, scope.slug);
      return project ? pageTags(project.organizationId, project.id, scope.group.name) : [];
    }
    const organization = await getOrganizationBySlug(kv, scope.slug);
    return organization ? pageTags(organization.id, null, scope.group.name) : [];
  }

  const middleware: MiddlewareHandler<AppEnv> = async (c, next) => {
    const edge = deps.config.edge;
    if (c.req.method !== "GET" || isRender(c.env)) return await next();
    const url = c.req.url;
    // A path too long for a KV key (2 KiB) names nothing stored: the route answers it.
    const scope = url.includes("?") || c.req.path.length > MAX_STORED_PATH
      ? null
      : storedScopeOf(c.req.path);
    if (!scope) {
      await next();
      const extra = untaggedPublic(c.res, edge);
      if (extra) c.res = withHeaders(c.res, extra);
      // A version's documents never change: kept in memory like stored pages (the project's
      // visibility is what could change, and a local change drops them at once).
      if (VERSIONED.test(c.req.path) && !url.includes("?") && c.res.status === 200) {
        const bytes = new Uint8Array(await c.res.arrayBuffer());
        const response = new Response(bytes, { status: 200, headers: c.res.headers });
        const variant = formatOfAccept(c.req.header("accept") ?? "");
        const wanted = negotiateCoding(c.req.header("accept-encoding"), ["br", "gzip"]);
        const etag = response.headers.get("etag");
        if (etag) {
          remember(memoryKey(c.req.path, variant, wanted), response.clone(), etag, bytes.length);
        }
        c.res = response;
      }
      return;
    }
    const path = c.req.path;
    const variant: Variant = formatOfAccept(c.req.header("accept") ?? "");
    const wanted = negotiateCoding(c.req.header("accept-encoding"), ["br", "gzip"]);
    const keys: Deno.KvKey[] = [];
    for (const v of ["any", variant] as Variant[]) {
      if (wanted) keys.push(pageKey(path, v, wanted));
      keys.push(pageKey(path, v, "identity"));
    }
    let found = pick(await kv.getMany<StoredPage[]>(keys));
    // A record of another group (rendered before the path's declaration changed) is not
    // current, whatever its generations say.
    if (found && found.record.group !== scope.group.id) found = null;
    if (found) {
      const { record, coding } = found;
      const current = await kv.getMany(dependencies(record));
      const body = signature(current).join(",") === record.generations.join(",")
        ? await bodyOf(record)
        : null;
      if (body) {
        const response = answer(record, body, coding, edge);
        const etag = response.headers.get("etag")!;
        remember(memoryKey(path, variant, wanted), response.clone(), etag, body.byteLength);
        if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
          return memory.get(memoryKey(path, variant, wanted))!.notModified.clone();
        }
        return response;
      }
    }
    // Not stored yet, or waiting for its re-render: answered live, tagged all the same.
    await next();
    if (c.res.status !== 200 || edge.purge === "none") return;
    const tags = found?.record.tags ?? await tagsOf(scope);
    const extra = tags.length > 0 ? edgeHeaders(edge, tags) : untaggedPublic(c.res, edge);
    if (extra) c.res = withHeaders(c.res, extra);
  };

  return {
    middleware,
    fastPath(request, env) {
      const method = request.method;
      if ((method !== "GET" && method !== "HEAD") || memory.size === 0 || isRender(env)) {
        return null;
      }
      const url = request.url;
      const authority = url.indexOf("//") + 2;
      const start = url.indexOf("/", authority);
      if (start < 0 || url.includes("?", start)) return null;
      // Deno builds the URL's authority from the Host header: a project's own host (custom
      // domain) is left to the router, which maps it to the canonical path.
      if (!isServiceHost(url.slice(authority, start))) return null;
      const path = url.slice(start);
      if (path.length > MAX_STORED_PATH || path.includes("%")) return null;
      return fromMemory(request, path);
    },
    invalidate,
    close: unlisten,
  };
}

/** A stored page's 200 answer in `coding` (null: identity), with the edge's headers. */
function answer(
  record: StoredPage,
  body: Uint8Array,
  coding: Coding | null,
  edge: EdgeConfig,
): Response {
  const headers = new Headers(record.headers);
  headers.set("etag", encodedEtag(record.etag, coding));
  // Every coding of a compressible page is offered: caches must key on Accept-Encoding.
  if (coding || isCompressible(headers.get("content-type"))) {
    headers.set("vary", varyWithEncoding(headers.get("vary") ?? undefined));
  }
  if (coding) headers.set("content-encoding", coding);
  for (const [name, value] of Object.entries(edgeHeaders(edge, record.tags))) {
    headers.set(name, value);
  }
  return new Response(body as Uint8Array<ArrayBuffer>, { status: record.status, headers });
}

/** `response` with `extra` headers set (a copy: fetched responses' headers cannot change). */
function withHeaders(response: Response, extra: Record<string, string>): Response {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  return new Response(response.body, { status: response.status, headers });
}

/**
 * A public answer that no purge can reach is not kept by the edge: with a purge driver, the
 * platform's CDN would otherwise keep it for its `s-maxage` after the data changed. Returns
 * the headers that say so, or null when none are needed.
 */
function untaggedPublic(response: Response, edge: EdgeConfig): Record<string, string> | null {
  if (edge.purge === "none") return null;
  const cache = response.headers.get("cache-control") ?? "";
  if (!/\bpublic\b/.test(cache) || /\bimmutable\b/.test(cache)) return null;
  if (response.headers.has("surrogate-key")) return null;
  return { "cdn-cache-control": "no-store", "deno-cdn-cache-control": "no-store" };
}
