/**
 * Lists the blob keys of an S3 bucket (ListObjects, 1,000 a page), for the whole-service
 * backup: the blob store interface reads and writes by key, and only a backup needs to
 * enumerate what a bucket holds. Objects whose names are not blob keys are skipped. Pages
 * follow each other by `marker` (the last key seen), which every S3-compatible store answers
 * alike; ListObjectsV2's opaque continuation tokens are not needed.
 */
import { AwsClient } from "aws4fetch";
import { BLOB_KINDS, BlobStoreError, parseBlobKey } from "./mod.ts";
import { bucketUrl, type S3BlobStoreOptions } from "./s3.ts";

/** Most pages a listing follows (a million objects at 1,000 a page); a loop guard. */
const MAX_PAGES = 1000;

/** Every blob key in the bucket, kind by kind, in the bucket's (lexicographic) order. */
export async function* listS3BlobKeys(options: S3BlobStoreOptions): AsyncGenerator<string> {
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    service: "s3",
    region: options.region,
  });
  const fetchImpl = options.fetch ?? fetch;
  const base = bucketUrl(options);
  for (const kind of BLOB_KINDS) {
    let marker: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const url = new URL(base);
      url.searchParams.set("prefix", `${kind}/`);
      url.searchParams.set("max-keys", "1000");
      if (marker) url.searchParams.set("marker", marker);
      const request = await client.sign(url, { method: "GET" });
      let response: Response;
      try {
        response = await fetchImpl(request);
      } catch (error) {
        throw new BlobStoreError(`S3 listing of "${kind}/" failed`, { cause: error });
      }
      const xml = await response.text();
      if (!response.ok) {
        const code = xml.match(/<Code>([^<]{1,64})<\/Code>/)?.[1];
        throw new BlobStoreError(
          `S3 listing of "${kind}/" failed with status ${response.status}${
            code ? ` (${code})` : ""
          }`,
        );
      }
      let last: string | undefined;
      for (const match of xml.matchAll(/<Key>([^<]*)<\/Key>/g)) {
        const key = decodeXml(match[1]);
        last = key;
        try {
          parseBlobKey(key);
        } catch {
          continue;
        }
        yield key;
      }
      if (!/<IsTruncated>true<\/IsTruncated>/.test(xml) || last === undefined) break;
      marker = last;
    }
  }
}

function decodeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, name: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[name]!,
  );
}
