/**
 * Serving published artifacts: the stored bytes as they are (never
 * re-rendered), a strong ETag that is their digest, 304 on If-None-Match,
 * and an in-memory cache by digest (artifacts are immutable).
 */
import type { Context } from "hono";
import type { BlobStore } from "../blobs/mod.ts";
import { notFound } from "../domain/errors.ts";
import type { Artifact } from "../store/publications.ts";
import { PUBLIC_CORS_HEADERS } from "./cors.ts";
import type { AppEnv } from "./env.ts";

const CACHE_BYTES = 64 * 1024 * 1024;
const cache = new Map<string, Uint8Array<ArrayBuffer>>();
let cachedBytes = 0;

/** The bytes of an artifact when they are already in memory. */
export function cachedArtifactBytes(artifact: Artifact): Uint8Array<ArrayBuffer> | undefined {
  return cache.get(artifact.key);
}

/** The bytes of an artifact, from memory when seen before. */
export async function artifactBytes(
  blobs: BlobStore,
  artifact: Artifact,
): Promise<Uint8Array<ArrayBuffer>> {
  const hit = cache.get(artifact.key);
  if (hit) {
    cache.delete(artifact.key);
    cache.set(artifact.key, hit);
    return hit;
  }
  const bytes = await blobs.get(artifact.key);
  if (!bytes) throw notFound("This version's documents are missing");
  const copy = new Uint8Array(bytes) as Uint8Array<ArrayBuffer>;
  cache.set(artifact.key, copy);
  cachedBytes += copy.byteLength;
  for (const [key, value] of cache) {
    if (cachedBytes <= CACHE_BYTES) break;
    cache.delete(key);
    cachedBytes -= value.byteLength;
  }
  return copy;
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

/** Bytes around an artifact, e.g. the `{"profile":…}` envelope around trust.json. */
export interface Wrap {
  prefix: string;
  suffix: string;
  /** Distinguishes the wrapped representation's ETag from the bare one. */
  tag: string;
}

const wrapped = new Map<string, Uint8Array<ArrayBuffer>>();

async function wrappedBytes(blobs: BlobStore, artifact: Artifact, wrap: Wrap) {
  const id = `${artifact.key}#${wrap.tag}`;
  const hit = wrapped.get(id);
  if (hit) return hit;
  const inner = await artifactBytes(blobs, artifact);
  const encoder = new TextEncoder();
  const before = encoder.encode(wrap.prefix);
  const after = encoder.encode(wrap.suffix);
  const bytes = new Uint8Array(before.length + inner.length + after.length);
  bytes.set(before);
  bytes.set(inner, before.length);
  bytes.set(after, before.length + inner.length);
  if (wrapped.size >= 1000) wrapped.delete(wrapped.keys().next().value!);
  wrapped.set(id, bytes);
  return bytes;
}

/** Responds with an artifact's stored bytes, or 304 when the client already has them. */
export function serveArtifact(
  c: Context<AppEnv>,
  artifact: Artifact,
  headers: Record<string, string>,
  wrap?: Wrap,
): Promise<Response> {
  return respondWithArtifact(c.req.raw, c.var.services.blobs, artifact, headers, wrap);
}

/** `serveArtifact` for a plain Request (the trust.json fast path has no Hono context). */
export async function respondWithArtifact(
  request: Request,
  blobs: BlobStore,
  artifact: Artifact,
  headers: Record<string, string>,
  wrap?: Wrap,
): Promise<Response> {
  const etag = wrap ? `"${artifact.digest}.${wrap.tag}"` : `"${artifact.digest}"`;
  const { ok, notModified } = artifactHeaders(etag, headers);
  if (ifNoneMatchHits(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers: notModified });
  }
  const bytes = wrap
    ? await wrappedBytes(blobs, artifact, wrap)
    : await artifactBytes(blobs, artifact);
  return new Response(bytes, { status: 200, headers: ok });
}
