import assert from "node:assert/strict";
import { S3rver } from "../deps.ts";
import { AwsClient } from "aws4fetch";
import { BLOB_RESTAMP_MS, BlobStoreError } from "../../src/blobs/mod.ts";
import { createS3BlobStore, type S3BlobStoreOptions } from "../../src/blobs/s3.ts";
import { randomBytes, runBlobStoreContract } from "./contract.ts";

const BUCKET = "blobs";
// s3rver's built-in account. For SigV4 it checks the access key id but not the signature.
const ACCESS_KEY_ID = "S3RVER";
const SECRET_ACCESS_KEY = "S3RVER";

/** Runs `body` against a fresh s3rver on an ephemeral 127.0.0.1 port, then removes it. */
async function withS3rver(body: (endpoint: string) => Promise<void>): Promise<void> {
  const directory = await Deno.makeTempDir({ prefix: "s3rver_" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  try {
    const { port } = await server.run();
    try {
      await body(`http://127.0.0.1:${port}`);
    } finally {
      await server.close();
    }
  } finally {
    await Deno.remove(directory, { recursive: true });
  }
}

function storeOptions(endpoint: string): S3BlobStoreOptions {
  return {
    endpoint,
    bucket: BUCKET,
    region: "us-east-1",
    accessKeyId: ACCESS_KEY_ID,
    secretAccessKey: SECRET_ACCESS_KEY,
    forcePathStyle: true,
  };
}

Deno.test("[blobs] s3 store satisfies the BlobStore contract", async (t) => {
  await withS3rver(async (endpoint) => {
    await runBlobStoreContract(t, () => createS3BlobStore(storeOptions(endpoint)));
  });
});

Deno.test("[blobs] s3 store specifics", async (t) => {
  await withS3rver(async (endpoint) => {
    await t.step("put sends HEAD then PUT, and only HEAD when the object exists", async () => {
      const requests: string[] = [];
      const store = createS3BlobStore({
        ...storeOptions(endpoint),
        fetch: (input, init) => {
          const request = new Request(input, init);
          requests.push(`${request.method} ${new URL(request.url).pathname}`);
          return fetch(request);
        },
      });
      const bytes = randomBytes(100);
      const key = await store.put("artifact", bytes);
      assert.deepEqual(requests, [`HEAD /${BUCKET}/${key}`, `PUT /${BUCKET}/${key}`]);

      requests.length = 0;
      assert.equal(await store.put("artifact", bytes), key);
      assert.deepEqual(requests, [`HEAD /${BUCKET}/${key}`]);
    });

    await t.step("a missing bucket is a BlobStoreError, not an absent blob", async () => {
      const store = createS3BlobStore({ ...storeOptions(endpoint), bucket: "absent" });
      const key = `evidence/${"a".repeat(64)}`;
      await assert.rejects(store.get(key), (error) => {
        assert.ok(error instanceof BlobStoreError);
        assert.equal(error.message, `S3 GET of "${key}" failed with status 404 (NoSuchBucket)`);
        return true;
      });
      await assert.rejects(store.put("evidence", randomBytes(10)), /status 404 \(NoSuchBucket\)/);
    });

    await t.step("rejected credentials fail without revealing them", async () => {
      const accessKeyId = "AKIAUNKNOWNKEYID";
      const secretAccessKey = "do-not-leak-this-secret";
      const store = createS3BlobStore({ ...storeOptions(endpoint), accessKeyId, secretAccessKey });
      const key = `evidence/${"a".repeat(64)}`;
      for (const attempt of [() => store.put("evidence", randomBytes(10)), () => store.get(key)]) {
        await assert.rejects(attempt, (error) => {
          assert.ok(error instanceof BlobStoreError);
          assert.match(error.message, /failed with status 403/);
          assert.ok(
            !error.message.includes(accessKeyId) && !error.message.includes(secretAccessKey),
          );
          return true;
        });
      }
    });

    await t.step("an unreachable endpoint is a BlobStoreError", async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const { port } = listener.addr;
      listener.close();
      const store = createS3BlobStore(storeOptions(`http://127.0.0.1:${port}`));
      await assert.rejects(store.has(`evidence/${"a".repeat(64)}`), BlobStoreError);
    });

    await t.step("get detects bytes that do not match their key", async () => {
      const store = createS3BlobStore({
        ...storeOptions(endpoint),
        fetch: () => Promise.resolve(new Response("tampered")),
      });
      await assert.rejects(
        store.get(`evidence/${"a".repeat(64)}`),
        (error) => error instanceof BlobStoreError && /does not match/.test(error.message),
      );
    });

    await t.step("put uploads again an object last written over an hour ago", async () => {
      const requests: string[] = [];
      const observe: typeof fetch = (input, init) => {
        const request = new Request(input, init);
        requests.push(request.method);
        return fetch(request);
      };
      const later = Date.now() + BLOB_RESTAMP_MS + 60_000;
      const store = createS3BlobStore({ ...storeOptions(endpoint), fetch: observe });
      const bytes = randomBytes(100);
      await store.put("evidence", bytes);
      requests.length = 0;
      const afterAnHour = createS3BlobStore({
        ...storeOptions(endpoint),
        fetch: observe,
        now: () => later,
      });
      await afterAnHour.put("evidence", bytes);
      assert.deepEqual(requests, ["HEAD", "PUT"]);
    });

    await t.step("list skips objects that are not blobs", async () => {
      const store = createS3BlobStore(storeOptions(endpoint));
      const client = new AwsClient({
        accessKeyId: ACCESS_KEY_ID,
        secretAccessKey: SECRET_ACCESS_KEY,
        service: "s3",
        region: "us-east-1",
      });
      const response = await client.fetch(`${endpoint}/${BUCKET}/notes/readme.txt`, {
        method: "PUT",
        body: "not a blob",
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
      const listed = await store.list({ limit: 1000 });
      assert.ok(listed.length > 0);
      assert.ok(listed.every((blob) => !blob.key.startsWith("notes/")));
    });
  });
});
