/**
 * Chooses the BlobStore named by configuration.
 */
import type { Config } from "../config.ts";
import { createKvBlobStore } from "./kv.ts";
import type { BlobClock, BlobStore } from "./mod.ts";
import { createS3BlobStore } from "./s3.ts";

export function openBlobStore(config: Config, kv: Deno.Kv, now?: BlobClock): BlobStore {
  if (config.blobStore.kind === "s3") {
    const { kind: _kind, ...options } = config.blobStore;
    return createS3BlobStore({ ...options, now });
  }
  return createKvBlobStore(kv, { now });
}
