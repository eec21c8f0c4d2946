/**
 * The hot read of the service, GET /trust/{projectSlug}/trust.json (what
 * machines poll), answered before the router: from the public cache and the
 * in-memory artifact bytes, with exactly the route's headers. When both are
 * warm the answer is a clone of a response prepared once per artifact,
 * returned synchronously, in the coding Accept-Encoding asks for (one prepared
 * answer per coding). Anything it cannot answer from memory (unknown or private
 * slug, another host, a cold cache, an encoding not loaded yet) goes to the full
 * app, which gives the same answer and warms the caches.
 */
import type { Config } from "../config.ts";
import type { Artifact } from "../domain/publication.ts";
import { type Coding, encodedEtag, negotiateCoding } from "../lib/content_coding.ts";
import {
  type ArtifactCache,
  artifactHeaders,
  codingsOf,
  encodingHeaders,
  ifNoneMatchHits,
} from "./artifacts.ts";
import { trustJsonHeaders } from "./headers.ts";
import { serviceHostTest } from "./hosts.ts";
import type { PublicCache } from "./public_cache.ts";

const PREFIX = "/trust/";
const SUFFIX = "/trust.json";

/** The slug of a `/trust/{slug}/trust.json` path, or null. */
function slugOf(path: string): string | null {
  if (!path.startsWith(PREFIX) || !path.endsWith(SUFFIX)) return null;
  const slug = path.slice(PREFIX.length, path.length - SUFFIX.length);
  return slug && !slug.includes("/") && !slug.includes("%") ? slug : null;
}

// Bounds of the prepared answers; past either, they are dropped and rebuilt as requested.
const MAX_ANSWERS = 1000;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** One answer for one trust.json artifact in one coding, built once and cloned per request. */
interface Answers {
  etag: string;
  /** Also the answer to HEAD: the HTTP server drops the body and keeps its length. */
  get: Response;
  notModified: Response;
}

/** The answers of one artifact: the codings it is served in, and the answers built so far. */
interface ArtifactAnswers {
  codings: readonly Coding[];
  byCoding: Map<Coding | "identity", Answers>;
  /** The answer for each Accept-Encoding value seen (clients send a handful of them). */
  byAccept: Map<string, Answers>;
}

const MAX_ACCEPT_VALUES = 32;

function answersFor(
  artifact: { digest: string },
  coding: Coding | null,
  bytes: Uint8Array<ArrayBuffer>,
  headers: Record<string, string>,
): Answers {
  const etag = encodedEtag(`"${artifact.digest}"`, coding);
  const { ok, notModified } = artifactHeaders(etag, encodingHeaders(headers, coding));
  return {
    etag,
    get: new Response(bytes, { headers: ok }),
    notModified: new Response(null, { status: 304, headers: notModified }),
  };
}

/**
 * The bytes of `artifact` in `coding` when in memory: the encoding, or the identity bytes
 * when the encoding is not smaller (coding null then); undefined when not loaded yet.
 */
function bytesInMemory(
  artifacts: ArtifactCache,
  artifact: Artifact,
  coding: Coding | null,
): { bytes: Uint8Array<ArrayBuffer>; coding: Coding | null } | undefined {
  if (coding) {
    const encoded = artifacts.cachedEncoded(artifact, coding);
    if (encoded === undefined) return undefined;
    if (encoded) return { bytes: encoded, coding };
  }
  const bytes = artifacts.cached(artifact);
  return bytes && { bytes, coding: null };
}

/** What the fast path reads: the app's configuration and its two public-read caches. */
export interface FastPathDeps {
  config: Config;
  publicCache: PublicCache;
  artifacts: ArtifactCache;
}

/**
 * Creates the fast path of one app: a function that returns the answer to a
 * request from memory, or null to let the router answer.
 */
export function createFastPath(deps: FastPathDeps): (request: Request) => Response | null {
  const isServiceHost = serviceHostTest(deps.config);
  // Responses per artifact and coding, built once and answered with clone(): a clone copies
  // the already validated header list, where a new Response would check every header again.
  const answersByKey = new Map<string, ArtifactAnswers>();
  let answerBytes = 0;
  return (request: Request): Response | null => {
    const method = request.method;
    if (method !== "GET" && method !== "HEAD") return null;
    const url = request.url;
    const authority = url.indexOf("//") + 2;
    const start = url.indexOf("/", authority);
    const query = url.indexOf("?", start);
    const slug = slugOf(query < 0 ? url.slice(start) : url.slice(start, query));
    // Deno builds the URL's authority from the Host header; where the two could differ (an
    // absolute-form request target), declining here is safe: the router reads Host itself.
    if (!slug || !isServiceHost(url.slice(authority, start))) return null;
    const view = deps.publicCache.peek(slug);
    if (view?.project?.visibility !== "public" || !view.publication) return null;
    const artifact = view.publication.artifacts.trustJson;
    let entry = answersByKey.get(artifact.key);
    if (!entry) {
      if (answersByKey.size >= MAX_ANSWERS || answerBytes > MAX_ANSWER_BYTES) {
        answersByKey.clear();
        answerBytes = 0;
      }
      entry = { codings: codingsOf(artifact), byCoding: new Map(), byAccept: new Map() };
      answersByKey.set(artifact.key, entry);
    }
    const headers = request.headers;
    const accept = headers.get("accept-encoding") ?? "";
    let answers = entry.byAccept.get(accept);
    if (!answers) {
      const wanted = accept ? negotiateCoding(accept, entry.codings) : null;
      answers = entry.byCoding.get(wanted ?? "identity");
      if (!answers) {
        const found = bytesInMemory(deps.artifacts, artifact, wanted);
        if (!found) return null;
        const base = trustJsonHeaders(deps.config, view.publication.logIndex);
        answers = answersFor(artifact, found.coding, found.bytes, base);
        entry.byCoding.set(wanted ?? "identity", answers);
        answerBytes += found.bytes.byteLength;
      }
      if (entry.byAccept.size >= MAX_ACCEPT_VALUES) entry.byAccept.clear();
      entry.byAccept.set(accept, answers);
    }
    if (ifNoneMatchHits(headers.get("if-none-match"), answers.etag)) {
      return answers.notModified.clone();
    }
    return answers.get.clone();
  };
}
