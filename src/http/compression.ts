/**
 * Compression of public answers made while the client waits: the trust center, answers,
 * framework, log, document and update pages in HTML, Markdown and JSON, search results,
 * guides; whatever a route answers for everyone alike. Stored pages and version artifacts
 * arrive compressed already (src/edge, src/serve/artifacts.ts) and pass through untouched.
 *
 * Only answers marked `Cache-Control: public` to requests without credentials are
 * compressed: they are the same for every reader, so compressing them cannot leak a secret
 * through the compressed length (BREACH needs a secret and reflected input in one body).
 * Each body is compressed once per coding and kept by its digest, so a page read again
 * before it changes costs a hash, not a compression.
 */
import type { Context, MiddlewareHandler } from "hono";
import {
  type Coding,
  compress,
  encodedEtag,
  isCompressible,
  negotiateCoding,
  varyWithEncoding,
} from "../lib/content_coding.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { ifNoneMatchHits } from "../serve/artifacts.ts";

/** Bodies smaller than this are sent as they are: a coding's framing would eat the gain. */
export const MIN_COMPRESSED_BYTES = 256;
const CACHE_ENTRIES = 256;
const CACHE_BYTES = 8 * 1024 * 1024;

/** Compressed bodies by coding and digest of the identity bytes, bounded in count and bytes. */
function createEncodedCache() {
  const entries = new Map<string, Uint8Array<ArrayBuffer> | null>();
  let bytes = 0;
  return async (body: Uint8Array, coding: Coding): Promise<Uint8Array<ArrayBuffer> | null> => {
    const key = `${coding} ${sha256HexSync(body)}`;
    if (entries.has(key)) return entries.get(key)!;
    const encoded = await compress(body, coding, "dynamic");
    // A body that does not shrink is remembered as such, and sent as it is.
    const kept = encoded.byteLength < body.byteLength ? encoded : null;
    if (entries.size >= CACHE_ENTRIES || bytes + (kept?.byteLength ?? 0) > CACHE_BYTES) {
      entries.clear();
      bytes = 0;
    }
    entries.set(key, kept);
    bytes += kept?.byteLength ?? 0;
    return kept;
  };
}

/**
 * Replaces the context's response with `response` as it is: Hono's setter would copy the
 * previous response's headers over the new one's (Vary, ETag and Content-Length included).
 */
function replaceResponse(c: Context, response: Response) {
  c.res = undefined as unknown as Response;
  c.res = response;
}

/** Whether the response is the same for everyone and worth compressing. */
function compressible(request: Request, response: Response): boolean {
  if (response.status !== 200 || response.headers.has("content-encoding")) return false;
  // A route that varies by Accept-Encoding chose its coding itself.
  if (/accept-encoding/i.test(response.headers.get("vary") ?? "")) return false;
  if (request.headers.has("authorization")) return false;
  if (!/(^|,)\s*public\s*(,|$)/i.test(response.headers.get("cache-control") ?? "")) return false;
  return isCompressible(response.headers.get("content-type"));
}

/**
 * The headers of a route's own 304 for an answer whose 200 this middleware compresses: the
 * route checked its identity ETag and knows the type it would have sent, the middleware sees
 * neither, so the route adds the `Vary: Accept-Encoding` its 200 gets here (a 304 carries the
 * Vary of its 200, RFC 9110 §15.4.5).
 */
export function notModifiedHeaders(
  request: Request,
  contentType: string,
  headers: Record<string, string>,
): Record<string, string> {
  const ok = new Response(null, { headers: { ...headers, "content-type": contentType } });
  if (!compressible(request, ok)) return headers;
  const vary = Object.entries(headers).find(([name]) => name.toLowerCase() === "vary")?.[1];
  const rest = Object.fromEntries(
    Object.entries(headers).filter(([name]) => name.toLowerCase() !== "vary"),
  );
  return { ...rest, vary: varyWithEncoding(vary) };
}

/**
 * The middleware: answers compressed by Accept-Encoding (q-values honoured, identity the
 * fallback) with `Vary: Accept-Encoding` and an ETag of their own, which revalidates (304)
 * here, since the route only knows its identity ETag. The edge's render job asks for
 * identity bytes and compresses what it stores itself.
 */
export function compressPublicAnswers(): MiddlewareHandler {
  const encoded = createEncodedCache();
  return async (c: Context, next) => {
    const method = c.req.method;
    const render = (c.env as { edgeRender?: unknown } | undefined)?.edgeRender === true;
    if ((method !== "GET" && method !== "HEAD") || render) return await next();
    const coding = negotiateCoding(c.req.header("accept-encoding"));
    await next();
    const response = c.res;
    if (!compressible(c.req.raw, response)) return;
    const headers = new Headers(response.headers);
    headers.set("vary", varyWithEncoding(headers.get("vary") ?? undefined));
    const length = Number(response.headers.get("content-length") ?? NaN);
    if (!coding || length < MIN_COMPRESSED_BYTES) {
      replaceResponse(c, new Response(response.body, { status: 200, headers }));
      return;
    }
    const body = new Uint8Array(await response.arrayBuffer());
    const smaller = body.byteLength >= MIN_COMPRESSED_BYTES ? await encoded(body, coding) : null;
    if (!smaller) {
      replaceResponse(c, new Response(body, { status: 200, headers }));
      return;
    }
    headers.set("content-encoding", coding);
    headers.delete("content-length");
    const etag = headers.get("etag");
    if (etag) {
      // The route checked If-None-Match against the identity ETag: this one is checked here.
      headers.set("etag", encodedEtag(etag, coding));
      if (ifNoneMatchHits(c.req.header("if-none-match"), headers.get("etag")!)) {
        headers.delete("content-type");
        headers.delete("content-encoding");
        replaceResponse(c, new Response(null, { status: 304, headers }));
        return;
      }
    }
    replaceResponse(c, new Response(smaller, { status: 200, headers }));
  };
}

/** A body prepared once in every coding, with its ETag: for documents that never change. */
export interface PreparedBody {
  etag: string;
  identity: Uint8Array<ArrayBuffer>;
  encodings: Partial<Record<Coding, Uint8Array<ArrayBuffer>>>;
}

/** Prepares `bytes`: its strong ETag and its brotli and gzip encodings (those that shrink). */
export async function prepareBody(bytes: Uint8Array<ArrayBuffer>): Promise<PreparedBody> {
  const encodings: PreparedBody["encodings"] = {};
  for (const coding of ["br", "gzip"] as const) {
    const encoded = await compress(bytes, coding, "stored");
    if (encoded.byteLength < bytes.byteLength) encodings[coding] = encoded;
  }
  return { etag: `"${sha256HexSync(bytes).slice(0, 32)}"`, identity: bytes, encodings };
}

/** Answers a prepared body in the coding the request prefers, or 304 for its ETag. */
export function answerPrepared(
  c: Context,
  prepared: PreparedBody,
  headers: Record<string, string>,
): Response {
  const available = Object.keys(prepared.encodings) as Coding[];
  const coding = negotiateCoding(c.req.header("accept-encoding"), available);
  const etag = encodedEtag(prepared.etag, coding);
  const common: Record<string, string> = { ...headers, etag, vary: "Accept-Encoding" };
  if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
    const { "content-type": _type, ...notModified } = common;
    return new Response(null, { status: 304, headers: notModified });
  }
  const body = coding ? prepared.encodings[coding]! : prepared.identity;
  return new Response(body, {
    status: 200,
    headers: coding ? { ...common, "content-encoding": coding } : common,
  });
}
