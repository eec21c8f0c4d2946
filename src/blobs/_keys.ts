/** KV key of a blob's metadata record; its presence is what makes the blob visible. */
export function blobMetaKey(blobKey: string): Deno.KvKey {
  return ["blobs", blobKey];
}

/** KV key of the `index`-th (0-based) chunk of a blob's bytes. */
export function blobChunkKey(blobKey: string, index: number): Deno.KvKey {
  return ["blob_chunks", blobKey, index];
}
