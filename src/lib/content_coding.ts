/**
 * Content codings of responses (RFC 9110 §8.4, §12.5.3): choosing one from Accept-Encoding
 * (q-values honoured, identity the fallback), compressing with gzip or brotli (node:zlib),
 * and the ETag of an encoded representation, which must differ from the identity one's.
 */
import { brotliCompress, constants, gzip } from "node:zlib";

/** The codings the service stores and serves, in order of preference on equal q-values. */
export const CODINGS = ["br", "gzip"] as const;
export type Coding = typeof CODINGS[number];

/** Accept-Encoding values seen, with what they allow: clients send a handful of them. */
const PARSED = new Map<string, Map<string, number>>();
const MAX_PARSED = 256;

/** The q-value of each coding an Accept-Encoding header names (lowercase; `*` included). */
function parse(header: string): Map<string, number> {
  const hit = PARSED.get(header);
  if (hit) return hit;
  const weights = new Map<string, number>();
  for (const item of header.split(",")) {
    const [name, ...params] = item.split(";");
    const coding = name.trim().toLowerCase();
    if (!coding) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split("=").map((part) => part.trim());
      if (key.toLowerCase() === "q") q = /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? +value : 0;
    }
    // A coding listed twice keeps its first weight, as a proxy reading left to right would.
    if (!weights.has(coding)) weights.set(coding, q);
  }
  if (PARSED.size >= MAX_PARSED) PARSED.clear();
  PARSED.set(header, weights);
  return weights;
}

/**
 * The coding to answer with, given the request's Accept-Encoding and the codings at hand:
 * the acceptable one (q > 0) with the highest q, `br` before `gzip` on a tie (`x-gzip` is
 * gzip, `*` any coding not named); null for identity, which is chosen only when no coding is
 * acceptable or identity is named with a higher q. Without the header, or with one that
 * refuses everything, the answer is identity (RFC 9110 lets a server ignore such a header
 * rather than answer 406).
 */
export function negotiateCoding(
  header: string | null | undefined,
  available: readonly Coding[] = CODINGS,
): Coding | null {
  if (!header) return null;
  const weights = parse(header);
  const star = weights.get("*");
  const identity = weights.get("identity") ?? (star === 0 ? 0 : 1e-3);
  let best: Coding | null = null;
  let bestQ = 0;
  for (const coding of available) {
    const q = weights.get(coding) ?? (coding === "gzip" ? weights.get("x-gzip") : undefined) ??
      star ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  return best && bestQ >= identity ? best : null;
}

/** The ETag of `coding`'s representation of the bytes whose identity ETag is `etag`. */
export function encodedEtag(etag: string, coding: Coding | null): string {
  if (!coding) return etag;
  const weak = etag.startsWith("W/");
  const opaque = (weak ? etag.slice(2) : etag).slice(1, -1);
  return `${weak ? "W/" : ""}"${opaque}.${coding === "gzip" ? "gz" : "br"}"`;
}

/** Adds Accept-Encoding to a Vary value (or makes one). */
export function varyWithEncoding(vary: string | undefined): string {
  if (!vary) return "Accept-Encoding";
  return /(^|,)\s*accept-encoding\s*(,|$)/i.test(vary) ? vary : `${vary}, Accept-Encoding`;
}

/** Whether responses of this Content-Type shrink when compressed (text, JSON, XML, SVG, JOSE). */
export function isCompressible(contentType: string | null | undefined): boolean {
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  return type.startsWith("text/") ||
    /^application\/(?:[\w.-]+\+)?(?:json|xml)$/.test(type) ||
    type === "application/jose" || type === "image/svg+xml" ||
    type === "application/javascript" || type === "application/typescript";
}

/**
 * How hard to compress: `stored` for bytes compressed once and kept (gzip level 9),
 * `dynamic` for bytes compressed while a client waits (gzip level 6).
 */
export type Effort = "stored" | "dynamic";

/**
 * Brotli quality, for both efforts. Quality 11 makes a version's documents 10–14% smaller
 * than 5 (a 29 KB page: 5 270 vs. 5 856 bytes) but took a publish from 16 to 161 ms on this
 * machine (qualities 7–10: 25–80 ms for under 1% gained); see docs/standards.md.
 */
const BROTLI_QUALITY = 5;

function run(
  fn: typeof gzip | typeof brotliCompress,
  bytes: Uint8Array,
  options: object,
): Promise<Uint8Array<ArrayBuffer>> {
  return new Promise((resolve, reject) => {
    (fn as (
      b: Uint8Array,
      o: object,
      cb: (error: Error | null, out: Uint8Array) => void,
    ) => void)(bytes, options, (error, out) => {
      if (error) reject(error);
      else resolve(new Uint8Array(out.buffer, out.byteOffset, out.byteLength).slice());
    });
  });
}

/** `bytes` compressed with `coding` (off the JavaScript thread: node:zlib's async calls). */
export function compress(
  bytes: Uint8Array,
  coding: Coding,
  effort: Effort,
): Promise<Uint8Array<ArrayBuffer>> {
  if (coding === "gzip") return run(gzip, bytes, { level: effort === "stored" ? 9 : 6 });
  return run(brotliCompress, bytes, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}
