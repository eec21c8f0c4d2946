/**
 * Serving published artifacts: the stored bytes as they are (never
 * re-rendered), a strong ETag that is their digest, 304 on If-None-Match,
 * and an in-memory cache by digest (artifacts are immutable).
 */
import type { BlobStore } from "../blobs/mod.ts";
import { notFound } from "../domain/errors.ts";
import type { Artifact } from "../domain/publication.ts";
import { PUBLIC_CORS_HEADERS } from "./headers.ts";

/** Bytes around an artifact, e.g. the `{"profile":…}` envelope around trust.json. */
export interface Wrap {
  prefix: string;
  suffix: string;
  /** Distinguishes the wrapped representation's ETag from the bare one. */
  tag: string;
}

/** The process's artifact bytes, bare and wrapped, bounded in size. */
export interface ArtifactCache {
  /** The bytes of an artifact when they are already in memory. */
  cached(artifact: Artifact): Uint8Array<ArrayBuffer> | undefined;
  /** The bytes of an artifact, from memory when seen before. */
  bytes(blobs: BlobStore, artifact: Artifact): Promise<Uint8Array<ArrayBuffer>>;
  /** The bytes of an artifact inside `wrap`, built once per artifact and wrap. */
  wrapped(blobs: BlobStore, artifact: Artifact, wrap: Wrap): Promise<Uint8Array<ArrayBuffer>>;
}

const CACHE_BYTES = 64 * 1024 * 1024;
const MAX_WRAPPED = 1000;

/**
 * Creates the artifact cache of one app: least recently used bytes are dropped past 64 MiB,
 * wrapped copies past 1000 entries (oldest first).
 */
export function createArtifactCache(): ArtifactCache {
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const wrapped = new Map<string, Uint8Array<ArrayBuffer>>();
  let cachedBytes = 0;
  const bytes = async (blobs: BlobStore, artifact: Artifact) => {
    const hit = cache.get(artifact.key);
    if (hit) {
      cache.delete(artifact.key);
      cache.set(artifact.key, hit);
      return hit;
    }
    const stored = await blobs.get(artifact.key);
    if (!stored) throw notFound("This version's documents are missing");
    const copy = new Uint8Array(stored) as Uint8Array<ArrayBuffer>;
    cache.set(artifact.key, copy);
    cachedBytes += copy.byteLength;
    for (const [key, value] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(key);
      cachedBytes -= value.byteLength;
    }
    return copy;
  };
  return {
    cached: (artifact) => cache.get(artifact.key),
    bytes,
    async wrapped(blobs, artifact, wrap) {
      const id = `${artifact.key}#${wrap.tag}`;
      const hit = wrapped.get(id);
      if (hit) return hit;
      const inner = await bytes(blobs, artifact);
      const encoder = new TextEncoder();
      const before = encoder.encode(wrap.prefix);
      const after = encoder.encode(wrap.suffix);
      const joined = new Uint8Array(before.length + inner.length + after.length);
      joined.set(before);
      joined.set(inner, before.length);
      joined.set(after, before.length + inner.length);
      if (wrapped.size >= MAX_WRAPPED) wrapped.delete(wrapped.keys().next().value!);
      wrapped.set(id, joined);
      return joined;
    },
  };
}

/**
 * Whether an If-None-Match header names `etag` or is `*` (RFC 9110 §13.1.2: a list, compared
 * weakly, so `W/"x"` matches `"x"`).
 */
export function ifNoneMatchHits(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === etag || tag === "*";
  });
}

/** Headers of an artifact's 200 answer, and of its 304 (the same without Content-Type). */
export function artifactHeaders(etag: string, headers: Record<string, string>) {
  const ok: Record<string, string> = {
    etag,
    ...PUBLIC_CORS_HEADERS,
    "x-content-type-options": "nosniff",
    ...headers,
  };
  const { "content-type": _type, ...notModified } = ok;
  return { ok, notModified };
}

/** Where artifact bytes come from: the blob store, through the app's cache. */
export interface ArtifactSource {
  blobs: BlobStore;
  artifacts: ArtifactCache;
}

/**
 * Responds with an artifact's stored bytes (inside `wrap` when given), or 304 when the
 * request's If-None-Match already names them.
 */
export async function respondWithArtifact(
  request: Request,
  source: ArtifactSource,
  options: { artifact: Artifact; headers: Record<string, string>; wrap?: Wrap },
): Promise<Response> {
  const { artifact, wrap } = options;
  const etag = wrap ? `"${artifact.digest}.${wrap.tag}"` : `"${artifact.digest}"`;
  const { ok, notModified } = artifactHeaders(etag, options.headers);
  if (ifNoneMatchHits(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers: notModified });
  }
  const bytes = wrap
    ? await source.artifacts.wrapped(source.blobs, artifact, wrap)
    : await source.artifacts.bytes(source.blobs, artifact);
  return new Response(bytes, { status: 200, headers: ok });
}
