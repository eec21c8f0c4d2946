/**
 * Files under static/, served with a content type, a strong ETag and
 * revalidation. Paths are matched against the directory listing taken at
 * start, so no request can name a file outside it.
 */
import type { Context } from "hono";
import { sha256HexSync } from "../lib/hash.ts";
import { ifNoneMatchHits } from "../serve/artifacts.ts";
import { notModifiedHeaders } from "./compression.ts";

const TYPES: Record<string, string> = {
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
  ".txt": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".ts": "application/typescript; charset=utf-8",
};

export interface StaticFile {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  type: string;
}

async function walk(dir: URL, prefix: string, out: Map<string, URL>) {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) {
      await walk(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`, out);
    } else if (entry.isFile) out.set(`${prefix}${entry.name}`, new URL(entry.name, dir));
  }
}

/** A file served from memory: `name` gives its content type (by extension). */
export function staticFile(name: string, content: Uint8Array<ArrayBuffer> | string): StaticFile {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  const etag = `"${sha256HexSync(bytes).slice(0, 32)}"`;
  const ext = name.slice(name.lastIndexOf("."));
  return { bytes, etag, type: TYPES[ext] ?? "application/octet-stream" };
}

/** Loads one file with its content type (by extension) and a strong ETag. */
export async function loadStaticFile(url: URL): Promise<StaticFile> {
  return staticFile(url.pathname, await Deno.readFile(url));
}

/** Loads static/ once and returns a lookup by relative path. */
export async function loadStaticFiles(dir: URL): Promise<Map<string, StaticFile>> {
  const paths = new Map<string, URL>();
  await walk(dir, "", paths);
  const files = new Map<string, StaticFile>();
  for (const [path, url] of paths) files.set(path, await loadStaticFile(url));
  return files;
}

/** Responds with a static file (or 304), or returns null when there is none at `path`. */
export function serveStatic(
  c: Context,
  files: Map<string, StaticFile>,
  path: string,
  headers: Record<string, string> = {},
): Response | null {
  const file = files.get(path);
  return file ? serveFile(c, file, headers) : null;
}

/** Responds with `file`, or 304 when the request's If-None-Match names its ETag. */
export function serveFile(
  c: Context,
  file: StaticFile,
  headers: Record<string, string> = {},
): Response {
  const common = {
    etag: file.etag,
    "cache-control": "public, max-age=300",
    "x-content-type-options": "nosniff",
    ...headers,
  };
  if (ifNoneMatchHits(c.req.header("if-none-match"), file.etag)) {
    return new Response(null, {
      status: 304,
      headers: notModifiedHeaders(c.req.raw, file.type, common),
    });
  }
  return new Response(file.bytes, {
    status: 200,
    headers: { "content-type": file.type, ...common },
  });
}
