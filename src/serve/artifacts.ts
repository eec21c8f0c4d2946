/**
 * Serving published artifacts: the stored bytes as they are (never
 * re-rendered), a strong ETag that is their digest, 304 on If-None-Match,
 * and an in-memory cache by digest (artifacts are immutable). A client that
 * accepts brotli or gzip gets the encoding stored at publish time (its own
 * ETag, `Content-Encoding`, `Vary: Accept-Encoding`); versions published
 * before encodings were stored, and bytes built per request, are compressed
 * on first use and kept in memory.
 */
import type { BlobStore } from "../blobs/mod.ts";
import { notFound } from "../domain/errors.ts";
import type { Artifact } from "../domain/publication.ts";
import {
  type Coding,
  CODINGS,
  compress,
  encodedEtag,
  isCompressible,
  negotiateCoding,
  varyWithEncoding,
} from "../lib/content_coding.ts";
import { PUBLIC_CORS_HEADERS } from "./headers.ts";
import { sha256HexSync } from "../lib/hash.ts";

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
  /**
   * The `coding` encoding of an artifact (inside `wrap` when given): the one stored at
   * publish time, else compressed now and kept. Null when it is not smaller than the bytes
   * themselves (then identity is served).
   */
  encoded(
    blobs: BlobStore,
    artifact: Artifact,
    coding: Coding,
    wrap?: Wrap,
  ): Promise<Uint8Array<ArrayBuffer> | null>;
  /** `encoded` when already in memory (undefined when not). */
  cachedEncoded(artifact: Artifact, coding: Coding): Uint8Array<ArrayBuffer> | null | undefined;
  /**
   * The `coding` encoding of bytes built per request, identified by `id` (their ETag):
   * compressed on first use and kept, null when not smaller.
   */
  encodedBytes(
    id: string,
    bytes: Uint8Array,
    coding: Coding,
  ): Promise<Uint8Array<ArrayBuffer> | null>;
}

/** The codings an artifact can be served in: those stored with it, else any (made on demand). */
export function codingsOf(artifact: Artifact, wrap?: Wrap): readonly Coding[] {
  if (wrap || !artifact.encodings) return CODINGS;
  return CODINGS.filter((coding) => artifact.encodings![coding] !== undefined);
}

const CACHE_BYTES = 64 * 1024 * 1024;
const MAX_WRAPPED = 1000;
const ENCODED_BYTES = 32 * 1024 * 1024;

/**
 * Creates the artifact cache of one app: least recently used bytes are dropped past 64 MiB,
 * wrapped copies past 1000 entries (oldest first), encodings past 32 MiB (least recently
 * used first).
 */
export function createArtifactCache(): ArtifactCache {
  // Encodings by `<blob key>#<wrap tag>#<coding>` (or `<id>#<coding>`); null: not smaller.
  const encodings = new Map<string, Uint8Array<ArrayBuffer> | null>();
  const pending = new Map<string, Promise<Uint8Array<ArrayBuffer> | null>>();
  let encodedBytes = 0;
  const remember = (id: string, value: Uint8Array<ArrayBuffer> | null) => {
    encodings.set(id, value);
    encodedBytes += value?.byteLength ?? 0;
    for (const [key, old] of encodings) {
      if (encodedBytes <= ENCODED_BYTES) break;
      encodings.delete(key);
      encodedBytes -= old?.byteLength ?? 0;
    }
  };
  /** The encoding under `id`, from memory, or made once by `make` however many ask at once. */
  const encodedOnce = (id: string, make: () => Promise<Uint8Array<ArrayBuffer> | null>) => {
    if (encodings.has(id)) {
      const hit = encodings.get(id)!;
      encodings.delete(id);
      encodings.set(id, hit);
      return Promise.resolve(hit);
    }
    const running = pending.get(id);
    if (running) return running;
    const made = make().then((value) => {
      remember(id, value);
      return value;
    }).finally(() => pending.delete(id));
    pending.set(id, made);
    return made;
  };
  const smaller = async (bytes: Uint8Array, coding: Coding) => {
    const out = await compress(bytes, coding, "dynamic");
    return out.byteLength < bytes.byteLength ? out : null;
  };
  const cache = new Map<string, Uint8Array<ArrayBuffer>>();
  const wrapped = new Map<string, Uint8Array<ArrayBuffer>>();
  let cachedBytes = 0;
  const bytes = async (blobs: BlobStore, artifact: Artifact) => {
    const id = idOf(artifact);
    const hit = cache.get(id);
    if (hit) {
      cache.delete(id);
      cache.set(id, hit);
      return hit;
    }
    const copy = artifact.parts ? await joinParts(blobs, artifact) : await whole(blobs, artifact);
    cache.set(id, copy);
    cachedBytes += copy.byteLength;
    for (const [key, value] of cache) {
      if (cachedBytes <= CACHE_BYTES) break;
      cache.delete(key);
      cachedBytes -= value.byteLength;
    }
    return copy;
  };
  const wrappedBytes = async (blobs: BlobStore, artifact: Artifact, wrap: Wrap) => {
    const id = `${idOf(artifact)}#${wrap.tag}`;
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
  };
  return {
    cached: (artifact) => cache.get(idOf(artifact)),
    bytes,
    wrapped: wrappedBytes,
    encoded(blobs, artifact, coding, wrap) {
      const id = `${idOf(artifact)}#${wrap?.tag ?? ""}#${coding}`;
      return encodedOnce(id, async () => {
        if (wrap) return await smaller(await wrappedBytes(blobs, artifact, wrap), coding);
        if (!artifact.encodings) return await smaller(await bytes(blobs, artifact), coding);
        const key = artifact.encodings[coding];
        if (!key) return null;
        const stored = await blobs.get(key);
        if (!stored) throw notFound("This version's documents are missing");
        return new Uint8Array(stored) as Uint8Array<ArrayBuffer>;
      });
    },
    cachedEncoded(artifact, coding) {
      return encodings.get(`${idOf(artifact)}##${coding}`);
    },
    encodedBytes(id, bytes, coding) {
      return encodedOnce(`${id}#${coding}`, () => smaller(bytes, coding));
    },
  };
}

/**
 * What an artifact's bytes are cached under: its blob key, or for one stored in parts its
 * digest (its first part's key names only its head).
 */
function idOf(artifact: Artifact): string {
  return artifact.parts ? `parts:${artifact.digest}` : artifact.key;
}

/** The bytes of an artifact stored whole. */
async function whole(blobs: BlobStore, artifact: Artifact): Promise<Uint8Array<ArrayBuffer>> {
  const stored = await blobs.get(artifact.key);
  if (!stored) throw notFound("This version's documents are missing");
  return new Uint8Array(stored) as Uint8Array<ArrayBuffer>;
}

/**
 * The bytes of an artifact stored in parts, joined, checked against its digest (a part
 * missing or not what was stored is an error, never a different document).
 */
async function joinParts(blobs: BlobStore, artifact: Artifact): Promise<Uint8Array<ArrayBuffer>> {
  const parts = await Promise.all(artifact.parts!.map((key) => blobs.get(key)));
  if (parts.some((part) => part === null)) {
    throw notFound("This version's documents are missing");
  }
  const out = new Uint8Array(parts.reduce((n, part) => n + part!.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part!, at);
    at += part!.byteLength;
  }
  if (`sha256:${sha256HexSync(out)}` !== artifact.digest) {
    throw new Error(`The parts of artifact ${artifact.digest} do not make its bytes`);
  }
  return out;
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

/**
 * Headers of an artifact's 200 answer, and of its 304 (the same without Content-Type and
 * Content-Encoding, which describe a body it does not have; ETag and Vary stay).
 */
export function artifactHeaders(etag: string, headers: Record<string, string>) {
  const ok: Record<string, string> = {
    etag,
    ...PUBLIC_CORS_HEADERS,
    "x-content-type-options": "nosniff",
    ...headers,
  };
  const { "content-type": _type, "content-encoding": _coding, ...notModified } = ok;
  return { ok, notModified };
}

/** Where artifact bytes come from: the blob store, through the app's cache. */
export interface ArtifactSource {
  blobs: BlobStore;
  artifacts: ArtifactCache;
}

/**
 * Headers of a representation in `coding` (null: identity): `Vary: Accept-Encoding` when the
 * type is compressible (every representation of it varies by that header), and the coding.
 */
export function encodingHeaders(
  headers: Record<string, string>,
  coding: Coding | null,
): Record<string, string> {
  if (!isCompressible(headers["content-type"])) return headers;
  const out: Record<string, string> = { ...headers, vary: varyWithEncoding(headers.vary) };
  if (coding) out["content-encoding"] = coding;
  return out;
}

/**
 * Responds with an artifact's stored bytes (inside `wrap` when given), in the coding the
 * request's Accept-Encoding prefers (q-values honoured, identity the fallback), or 304 when
 * its If-None-Match already names that representation.
 */
export async function respondWithArtifact(
  request: Request,
  source: ArtifactSource,
  options: { artifact: Artifact; headers: Record<string, string>; wrap?: Wrap },
): Promise<Response> {
  const { artifact, wrap } = options;
  const identityTag = wrap ? `"${artifact.digest}.${wrap.tag}"` : `"${artifact.digest}"`;
  const wanted = isCompressible(options.headers["content-type"])
    ? negotiateCoding(request.headers.get("accept-encoding"), codingsOf(artifact, wrap))
    : null;
  const encoded = wanted
    ? await source.artifacts.encoded(source.blobs, artifact, wanted, wrap)
    : null;
  const coding = encoded ? wanted : null;
  const etag = encodedEtag(identityTag, coding);
  const { ok, notModified } = artifactHeaders(etag, encodingHeaders(options.headers, coding));
  if (ifNoneMatchHits(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers: notModified });
  }
  const bytes = encoded ??
    (wrap
      ? await source.artifacts.wrapped(source.blobs, artifact, wrap)
      : await source.artifacts.bytes(source.blobs, artifact));
  return new Response(bytes, { status: 200, headers: ok });
}

/**
 * Responds with bytes built per request (the latest page with its live block) whose ETag is
 * `etag`, compressed as the request prefers (kept in memory by ETag), or 304.
 */
export async function respondWithBytes(
  request: Request,
  source: Pick<ArtifactSource, "artifacts">,
  options: { bytes: Uint8Array<ArrayBuffer>; etag: string; headers: Record<string, string> },
): Promise<Response> {
  const wanted = isCompressible(options.headers["content-type"])
    ? negotiateCoding(request.headers.get("accept-encoding"))
    : null;
  const encoded = wanted
    ? await source.artifacts.encodedBytes(options.etag, options.bytes, wanted)
    : null;
  const coding = encoded ? wanted : null;
  const etag = encodedEtag(options.etag, coding);
  const { ok, notModified } = artifactHeaders(etag, encodingHeaders(options.headers, coding));
  if (ifNoneMatchHits(request.headers.get("if-none-match"), etag)) {
    return new Response(null, { status: 304, headers: notModified });
  }
  return new Response(encoded ?? options.bytes, { status: 200, headers: ok });
}
