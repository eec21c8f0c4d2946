import { AwsClient } from "aws4fetch";
import type { S3Config } from "../config.ts";
import { sha256Hex, unshared } from "../lib/hash.ts";
import {
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
}

/**
 * A BlobStore on an S3-compatible bucket, signing requests with SigV4 via aws4fetch. `put`
 * sends a HEAD first and uploads only when the object is absent; a 404 reads as absent; any
 * other non-2xx status or network failure throws a BlobStoreError naming the method, key and
 * status, never the credentials. Downloads are checked against the SHA-256 in their key.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: "s3",
    region: options.region,
  });
  const fetchImpl = options.fetch ?? fetch;
  const base = bucketUrl(options);

  // Signing then fetching ourselves (not client.fetch) avoids aws4fetch's silent retries
  // with backoff, so a failing bucket surfaces at once and callers decide about retrying.
  const send = async (method: string, key: string, init: RequestInit = {}): Promise<Response> => {
    const request = await client.sign(new URL(key, base), { ...init, method });
    try {
      return await fetchImpl(request);
    } catch (error) {
      throw new BlobStoreError(`S3 ${method} of "${key}" failed`, { cause: error });
    }
  };

  const exists = async (key: string): Promise<boolean> => {
    const response = await send("HEAD", key);
    if (response.status === 404) return false;
    await expectOk(response, "HEAD", key);
    return true;
  };

  return {
    putMany(kind: BlobKind, items: readonly Uint8Array[]): Promise<string[]> {
      return putEach(this, kind, items);
    },

    async put(kind: BlobKind, bytes: Uint8Array): Promise<string> {
      const sha256 = await sha256Hex(bytes);
      const key = blobKey(kind, sha256);
      if (await exists(key)) return key;
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
      return await exists(key);
    },
  };
}

// The URL that blob keys resolve against; keys are validated, so they never escape it.
export function bucketUrl(options: S3BlobStoreOptions): URL {
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
