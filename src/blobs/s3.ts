import { AwsClient } from "aws4fetch";
import type { S3Config } from "../config.ts";
import { sha256Hex, unshared } from "../lib/hash.ts";
import {
  BLOB_RESTAMP_MS,
  type BlobClock,
  type BlobInfo,
  blobKey,
  type BlobKind,
  type BlobStore,
  BlobStoreError,
  parseBlobKey,
  putEach,
} from "./mod.ts";

/** Where and how {@linkcode createS3BlobStore} reaches its bucket (see S3Config). */
export interface S3BlobStoreOptions extends S3Config {
  /** Replaces the global fetch, e.g. to observe or fail requests in tests. */
  fetch?: typeof fetch;
  /** The time a stored object's Last-Modified is compared with (default the system clock). */
  now?: BlobClock;
}

/**
 * A BlobStore on an S3-compatible bucket, signing requests with SigV4 via aws4fetch. `put`
 * sends a HEAD first and uploads only when the object is absent; a 404 reads as absent; any
 * other non-2xx status or network failure throws a BlobStoreError naming the method, key and
 * status, never the credentials. Downloads are checked against the SHA-256 in their key. An
 * object's Last-Modified is its stamp for the garbage collector: a put that finds an object
 * last written more than BLOB_RESTAMP_MS ago uploads it again, which renews it.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: "s3",
    region: options.region,
  });
  const fetchImpl = options.fetch ?? fetch;
  const now = options.now ?? Date.now;
  const base = bucketUrl(options);

  // Signing then fetching ourselves (not client.fetch) avoids aws4fetch's silent retries
  // with backoff, so a failing bucket surfaces at once and callers decide about retrying.
  const send = async (
    method: string,
    key: string,
    init: RequestInit = {},
    url = new URL(key, base),
  ): Promise<Response> => {
    const request = await client.sign(url, { ...init, method });
    try {
      return await fetchImpl(request);
    } catch (error) {
      throw new BlobStoreError(`S3 ${method} of "${key}" failed`, { cause: error });
    }
  };

  /** When the object was last written (epoch ms), or null when it is absent. */
  const lastModified = async (key: string): Promise<number | null> => {
    const response = await send("HEAD", key);
    if (response.status === 404) return null;
    await expectOk(response, "HEAD", key);
    return Date.parse(response.headers.get("last-modified") ?? "") || 0;
  };

  return {
    putMany(kind: BlobKind, items: readonly Uint8Array[]): Promise<string[]> {
      return putEach(this, kind, items);
    },

    async put(kind: BlobKind, bytes: Uint8Array): Promise<string> {
      const sha256 = await sha256Hex(bytes);
      const key = blobKey(kind, sha256);
      const stamp = await lastModified(key);
      if (stamp !== null && stamp >= now() - BLOB_RESTAMP_MS) return key;
      const response = await send("PUT", key, {
        body: unshared(bytes),
        headers: {
          "content-type": "application/octet-stream",
          // Signing the real digest instead of UNSIGNED-PAYLOAD lets S3 reject corrupted uploads.
          "x-amz-content-sha256": sha256,
        },
      });
      await expectOk(response, "PUT", key);
      await response.body?.cancel();
      return key;
    },

    async get(key: string): Promise<Uint8Array | null> {
      const { sha256 } = parseBlobKey(key);
      const response = await send("GET", key);
      if (!response.ok) {
        const code = await errorCode(response);
        // A missing bucket also answers 404; it must not pass for missing evidence.
        if (response.status === 404 && code !== "NoSuchBucket") return null;
        throw statusError(response, "GET", key, code);
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (await sha256Hex(bytes) !== sha256) {
        throw new BlobStoreError(`Blob "${key}" does not match its SHA-256`);
      }
      return bytes;
    },

    async has(key: string): Promise<boolean> {
      parseBlobKey(key);
      return await lastModified(key) !== null;
    },

    async stat(key: string): Promise<BlobInfo | null> {
      parseBlobKey(key);
      const response = await send("HEAD", key);
      if (response.status === 404) return null;
      await expectOk(response, "HEAD", key);
      return {
        key,
        size: Number(response.headers.get("content-length") ?? 0),
        storedAt: Date.parse(response.headers.get("last-modified") ?? "") || 0,
      };
    },

    /**
     * ListObjects from `marker` (version 1, which every S3-compatible store answers alike);
     * objects that are not blob keys are skipped.
     */
    async list({ after, limit }): Promise<BlobInfo[]> {
      let marker = after;
      // A page of nothing but other objects goes on to the next, so an empty answer means done.
      for (;;) {
        const url = new URL(base);
        url.searchParams.set("max-keys", String(limit));
        if (marker !== undefined) url.searchParams.set("marker", marker);
        const response = await send("GET", "(listing)", {}, url);
        await expectOk(response, "GET", "(listing)");
        const page = parseListing(await response.text());
        if (page.blobs.length > 0 || !page.truncated || page.last === null) return page.blobs;
        marker = page.last;
      }
    },

    async delete(key: string, options: { storedBefore?: number } = {}): Promise<boolean> {
      parseBlobKey(key);
      const stamp = await lastModified(key);
      if (stamp === null) return false;
      if (options.storedBefore !== undefined && stamp >= options.storedBefore) return false;
      const response = await send("DELETE", key);
      await expectOk(response, "DELETE", key);
      await response.body?.cancel();
      return true;
    },
  };
}

/**
 * The blobs of a ListObjects answer (blob keys need no unescaping), the last key listed and
 * whether more follow.
 */
function parseListing(xml: string): { blobs: BlobInfo[]; last: string | null; truncated: boolean } {
  const blobs: BlobInfo[] = [];
  let last: string | null = null;
  for (const [, contents] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
    const key = contents.match(/<Key>([^<]*)<\/Key>/)?.[1] ?? "";
    last = key;
    try {
      parseBlobKey(key);
    } catch {
      continue;
    }
    blobs.push({
      key,
      size: Number(contents.match(/<Size>(\d+)<\/Size>/)?.[1] ?? 0),
      storedAt: Date.parse(contents.match(/<LastModified>([^<]*)<\/LastModified>/)?.[1] ?? "") ||
        0,
    });
  }
  return { blobs, last, truncated: /<IsTruncated>true<\/IsTruncated>/.test(xml) };
}

// The URL that blob keys resolve against; keys are validated, so they never escape it.
function bucketUrl(options: S3BlobStoreOptions): URL {
  const url = new URL(options.endpoint);
  const prefix = url.pathname.endsWith("/") ? url.pathname : `${url.pathname}/`;
  const bucket = encodeURIComponent(options.bucket);
  if (options.forcePathStyle) {
    url.pathname = `${prefix}${bucket}/`;
  } else {
    url.hostname = `${bucket}.${url.hostname}`;
    url.pathname = prefix;
  }
  return url;
}

async function expectOk(response: Response, method: string, key: string): Promise<void> {
  if (!response.ok) throw statusError(response, method, key, await errorCode(response));
}

// S3 error bodies are small XML documents whose <Code> says more than the status alone;
// HEAD responses have no body, hence no code.
async function errorCode(response: Response): Promise<string | undefined> {
  return (await response.text()).match(/<Code>([^<]{1,64})<\/Code>/)?.[1];
}

function statusError(
  response: Response,
  method: string,
  key: string,
  code: string | undefined,
): BlobStoreError {
  const detail = code === undefined ? "" : ` (${code})`;
  return new BlobStoreError(
    `S3 ${method} of "${key}" failed with status ${response.status}${detail}`,
  );
}
