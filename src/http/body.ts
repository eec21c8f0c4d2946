/**
 * Request bodies are read once, here, before any parsing: the size limit is
 * enforced while streaming (so a huge body is refused before it is buffered),
 * and JSON is parsed and checked for depth and non-finite numbers, so no
 * handler ever sees input that could overflow a stack or poison a hash.
 */
import type { MiddlewareHandler } from "hono";
import { AppError, badRequest } from "../domain/errors.ts";
import type { AppEnv } from "./env.ts";

/** Deepest JSON nesting accepted (SBOMs and scan reports stay far below this). */
export const MAX_JSON_DEPTH = 64;

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

function tooLarge(limit: number) {
  return new AppError("payload_too_large", `Request body exceeds ${limit} bytes`);
}

function tooSlow(timeoutMs: number) {
  return new AppError(
    "request_timeout",
    `Request body did not arrive within ${timeoutMs / 1000} seconds`,
    { Connection: "close" },
  );
}

/**
 * Reads a whole body of at most `limit` bytes that must arrive within
 * `timeoutMs`: a client that sends part of a body and stalls is answered 408
 * instead of holding its connection and buffer forever.
 */
async function readLimited(
  body: ReadableStream<Uint8Array>,
  options: { limit: number; timeoutMs: number },
): Promise<Uint8Array> {
  const { limit, timeoutMs } = options;
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    for (;;) {
      const read = await Promise.race([reader.read(), deadline]);
      if (read === "timeout") {
        reader.cancel().catch(() => {});
        throw tooSlow(timeoutMs);
      }
      const { done, value } = read;
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** Throws a 400 when `value` nests deeper than MAX_JSON_DEPTH or holds a non-finite number. */
export function assertSafeJson(value: unknown): void {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node === "number" && !Number.isFinite(node)) {
      throw badRequest("JSON numbers must be finite");
    }
    if (node === null || typeof node !== "object") continue;
    if (depth >= MAX_JSON_DEPTH) {
      throw badRequest(`JSON nesting exceeds ${MAX_JSON_DEPTH} levels`);
    }
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      stack.push([child, depth + 1]);
    }
  }
}

/** Parses JSON text with the API's errors for malformed or unsafe input. */
export function parseJsonText(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badRequest("Malformed JSON in request body");
  }
  assertSafeJson(value);
  return value;
}

/**
 * Reads the request body with a byte limit chosen per request and a time
 * limit, then caches it (and the parsed JSON, when the media type is JSON)
 * for the validators.
 */
export function readBody(
  limitFor: (path: string) => number,
  options: { timeoutMs: number },
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const raw = c.req.raw;
    if (!raw.body || raw.method === "GET" || raw.method === "HEAD") return await next();
    const limit = limitFor(c.req.path);
    const declared = Number(raw.headers.get("content-length") ?? "0");
    if (declared > limit) throw tooLarge(limit);
    const bytes = await readLimited(raw.body, { limit, timeoutMs: options.timeoutMs });
    // Hono keeps body promises in bodyCache although its type names the resolved values.
    const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
    cache.arrayBuffer = Promise.resolve(bytes.buffer);
    const mediaType = (raw.headers.get("content-type") ?? "").split(";")[0].trim();
    if (bytes.byteLength > 0 && JSON_TYPE.test(mediaType)) {
      const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
      cache.json = Promise.resolve(parseJsonText(text));
    }
    await next();
  };
}
