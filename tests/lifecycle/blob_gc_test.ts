import assert from "node:assert/strict";
import { S3rver } from "../deps.ts";
import type { BlobStore } from "../../src/blobs/mod.ts";
import { createS3BlobStore } from "../../src/blobs/s3.ts";
import {
  BLOB_GC_GRACE_MS,
  collectUnreferencedBlobs,
  requestBlobCollection,
} from "../../src/lifecycle/blob_gc.ts";
import { getBlobGcState } from "../../src/store/blob_gc.ts";
import { setDocumentStamp } from "../../src/store/documents.ts";
import { pageKey, type StoredPage } from "../../src/store/edge_pages.ts";
import { getJob } from "../../src/store/jobs.ts";
import { questionnaireKey } from "../../src/store/keys.ts";
import { withLease } from "../../src/store/leases.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import {
  collector,
  evidenceItem,
  publishVersion,
  sbomPayload,
  workspace,
} from "../support/fixtures.ts";
import { randomBytes } from "../blobs/contract.ts";

const HOUR = 3600 * 1000;
const LOGO = Deno.readFileSync(new URL("../fixtures/logos/logo.png", import.meta.url));

/** Every blob key the store lists. */
async function allKeys(blobs: BlobStore): Promise<Set<string>> {
  const keys = new Set<string>();
  let after: string | undefined;
  for (let page = 0; page < 10_000; page++) {
    const listed = await blobs.list({ after, limit: 100 });
    if (listed.length === 0) break;
    for (const blob of listed) keys.add(blob.key);
    after = listed[listed.length - 1].key;
  }
  return keys;
}

/**
 * A vendor with a record of every kind that references blobs: evidence, a published version,
 * a document with a stamped copy, a logo, a questionnaire and a stored page large enough to be
 * a blob.
 */
async function referencingEverything(ctx: TestApp): Promise<void> {
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const ingest = await ctx.call("POST", "/ingest/evidence", {
    json: { projectId: ws.project.id, ...evidenceItem(ctx, sbomPayload(1, 50_000)) },
    headers: { authorization: `Bearer ${c.secret}` },
  });
  assert.equal(ingest.status, 201, await ingest.clone().text());
  await ingest.body?.cancel();
  await publishVersion(ctx, ws);
  const pdf = await makePdf("Report");
  const uploaded = await upload(ctx, ws.organization.id, { token: ws.token, bytes: pdf });
  assert.equal(uploaded.status, 201, await uploaded.clone().text());
  const { document } = await uploaded.json();
  const stamped = await ctx.services.blobs.put("document", randomBytes(2000));
  await setDocumentStamp(ctx.kv, {
    organizationId: ws.organization.id,
    documentSha256: document.sha256,
    recipientHash: "f".repeat(64),
  }, {
    stampedSha256: stamped.slice("document/".length),
    at: ctx.clock.now().toISOString(),
  });
  const logo = await ctx.call("PUT", `/organizations/${ws.organization.id}/logo`, {
    token: ws.token,
    body: LOGO as BodyInit,
    headers: { "content-type": "image/png" },
  });
  assert.equal(logo.status, 200, await logo.clone().text());
  await logo.body?.cancel();
  // The record as the questionnaire store keeps it (only its file's digest matters here).
  const file = await ctx.services.blobs.put("document", randomBytes(3000));
  await ctx.kv.set(questionnaireKey(ws.organization.id, crypto.randomUUID()), {
    sha256: file.slice("document/".length),
  });
  const page: StoredPage = {
    organizationId: ws.organization.id,
    projectId: ws.project.id,
    generations: [],
    status: 200,
    headers: [],
    etag: '"x"',
    tags: [],
    blob: await ctx.services.blobs.put("artifact", randomBytes(60 * 1024)),
    renderedAt: ctx.clock.now().toISOString(),
  };
  await ctx.kv.set(pageKey("/trust/x", "html", "identity"), page);
}

Deno.test("[lifecycle] the blob collector keeps every referenced blob and young ones", async (t) => {
  await using ctx = await createTestApp();
  const { blobs } = ctx.services;
  await referencingEverything(ctx);
  const referenced = await allKeys(blobs);
  assert.ok(referenced.size >= 20, `${referenced.size} blobs`);
  const orphans = [
    await blobs.put("evidence", randomBytes(100)),
    await blobs.put("artifact", randomBytes(70 * 1024)),
    await blobs.put("document", randomBytes(300 * 1024)),
    await blobs.put("logo", randomBytes(10)),
  ];

  await t.step("within the grace, an unreferenced blob stays", async () => {
    ctx.clock.advance(BLOB_GC_GRACE_MS - HOUR);
    const result = await collectUnreferencedBlobs(ctx.services);
    assert.equal(result.complete, true);
    assert.equal(result.last?.deleted, 0);
    assert.equal(result.last?.young, orphans.length);
    for (const key of orphans) assert.equal(await blobs.has(key), true);
  });

  await t.step("past the grace it goes, and every referenced blob stays", async () => {
    ctx.clock.advance(2 * HOUR);
    const young = await blobs.put("evidence", randomBytes(100));
    const result = await collectUnreferencedBlobs(ctx.services);
    assert.equal(result.complete, true);
    assert.equal(result.last?.deleted, orphans.length);
    assert.equal(result.last?.young, 1);
    const left = await allKeys(blobs);
    assert.deepEqual(left, new Set([...referenced, young]));
    for (const key of referenced) assert.ok(await blobs.get(key), key);
  });

  await t.step("an old blob stored again is re-stamped and outlives the grace", async () => {
    const bytes = randomBytes(500);
    const key = await blobs.put("evidence", bytes);
    ctx.clock.advance(BLOB_GC_GRACE_MS + HOUR);
    // A writer reuses the old unreferenced blob; its reference commits after the cycle began.
    assert.equal(await blobs.put("evidence", bytes), key);
    const result = await collectUnreferencedBlobs(ctx.services);
    assert.equal(result.complete, true);
    assert.equal(await blobs.has(key), true);
  });

  await t.step("the marks of a cycle are gone once it ends", async () => {
    let marks = 0;
    for await (const _ of ctx.kv.list({ prefix: ["blob_gc_marks"] })) marks++;
    assert.equal(marks, 0);
    assert.equal((await getBlobGcState(ctx.kv)).value, null);
  });
});

Deno.test("[lifecycle] the blob collector resumes a cycle step by step", async (t) => {
  await using ctx = await createTestApp();
  const { blobs } = ctx.services;
  await referencingEverything(ctx);
  const referenced = await allKeys(blobs);
  const orphans = await Promise.all(
    Array.from({ length: 150 }, () => blobs.put("evidence", randomBytes(64))),
  );
  ctx.clock.advance(BLOB_GC_GRACE_MS + HOUR);

  await t.step("one step per call moves through mark, sweep and clean", async () => {
    const phases: string[] = [];
    let calls = 0;
    for (; calls < 200; calls++) {
      const result = await collectUnreferencedBlobs(ctx.services, { maxSteps: 1 });
      if (result.complete) break;
      const phase = result.state?.phase ?? "none";
      if (phases.at(-1) !== phase) phases.push(phase);
    }
    assert.deepEqual(phases, ["mark", "sweep", "clean"]);
    assert.ok(calls > 10, `${calls} calls`);
    assert.deepEqual(await allKeys(blobs), referenced);
    for (const key of orphans) assert.equal(await blobs.has(key), false);
  });

  await t.step("a second collector finds the lease held and does nothing", async () => {
    await blobs.put("evidence", randomBytes(64));
    ctx.clock.advance(BLOB_GC_GRACE_MS + HOUR);
    const lease = { name: "blob-gc", id: "all", ttlMs: 15_000, waitMs: 0 };
    const result = await withLease(ctx.kv, lease, () => collectUnreferencedBlobs(ctx.services));
    assert.equal(result.busy, true);
    assert.equal(result.complete, false);
    assert.equal((await getBlobGcState(ctx.kv)).value, null);
  });

  await t.step("startedAfter waits for a cycle that began after a removal", async () => {
    const removedAt = ctx.clock.now();
    const result = await collectUnreferencedBlobs(ctx.services, { startedAfter: removedAt });
    assert.equal(result.complete, true);
    assert.ok(Date.parse(result.last!.startedAt) >= removedAt.getTime());
    assert.deepEqual(await allKeys(blobs), referenced);
  });

  await t.step("the job runs the collector for the tenant that asked", async () => {
    await requestBlobCollection(ctx.kv, { organizationId: "org-1", now: ctx.clock.now() });
    const job = await getJob(ctx.kv, "blob-gc");
    assert.equal(job?.message.organizationId, "org-1");
    assert.equal(job?.tag?.tenant, "org-1");
    await ctx.services.jobs.drain(20_000);
    assert.equal(await getJob(ctx.kv, "blob-gc"), null);
  });
});

Deno.test("[lifecycle] the blob collector on S3 keeps referenced and young objects", async () => {
  const directory = await Deno.makeTempDir({ prefix: "s3rver_" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: "blobs" }],
  });
  const { port } = await server.run();
  try {
    // The objects' stamps are the server's Last-Modified: the clock starts at the real time.
    await using ctx = await createTestApp({
      now: new Date(),
      blobs: () =>
        createS3BlobStore({
          endpoint: `http://127.0.0.1:${port}`,
          bucket: "blobs",
          region: "us-east-1",
          accessKeyId: "S3RVER",
          secretAccessKey: "S3RVER",
          forcePathStyle: true,
          now: () => ctx.clock.now().getTime(),
        }),
    });
    const { blobs } = ctx.services;
    await referencingEverything(ctx);
    const referenced = await allKeys(blobs);
    const orphan = await blobs.put("evidence", randomBytes(100));
    const young = await collectUnreferencedBlobs(ctx.services);
    assert.equal(young.last?.young, 1);
    assert.equal(await blobs.has(orphan), true);
    ctx.clock.advance(BLOB_GC_GRACE_MS + HOUR);
    const old = await collectUnreferencedBlobs(ctx.services);
    assert.equal(old.last?.deleted, 1);
    assert.deepEqual(await allKeys(blobs), referenced);
  } finally {
    await server.close();
    await Deno.remove(directory, { recursive: true });
  }
});

Deno.test("[lifecycle] every module that stores blobs is one the collector reads records of", async () => {
  // A new writer of blobs needs a reference source in src/store/blob_references.ts (and to be
  // added here), or the collector would remove what it stores.
  const known = [
    "edge/render.ts",
    "ingest/evidence.ts",
    // An organization's import writes its blobs beside the records it imports, which name them.
    "lifecycle/org_import.ts",
    // Restore writes back the blobs of a backup, named by the records it restored with them.
    "lifecycle/restore.ts",
    "publish/publish.ts",
    "serve/access_links.ts",
    "serve/documents.ts",
    "serve/logos.ts",
    "serve/questionnaire_export.ts",
    "serve/questionnaires.ts",
  ];
  const writers: string[] = [];
  const root = new URL("../../src/", import.meta.url);
  async function walk(dir: URL) {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts") && !url.pathname.includes("/src/blobs/")) {
        const text = await Deno.readTextFile(url);
        if (/blobs\??\.(put|putMany|stageMany)\s*\(/.test(text)) {
          writers.push(url.pathname.slice(root.pathname.length));
        }
      }
    }
  }
  await walk(root);
  assert.deepEqual(writers.sort(), known);
});

Deno.test("[lifecycle] a cycle over thousands of references stays within KV's limits", async () => {
  await using ctx = await createTestApp();
  const { blobs } = ctx.services;
  // 60 records naming 40 blobs each, like versions with their artifacts and encodings.
  const named: string[] = [];
  for (let i = 0; i < 60; i++) {
    const keys = await blobs.putMany("artifact", Array.from({ length: 40 }, () => randomBytes(8)));
    named.push(...keys);
    await ctx.kv.set(["test_references", i], keys);
  }
  const orphan = await blobs.put("artifact", randomBytes(8));
  ctx.clock.advance(BLOB_GC_GRACE_MS + HOUR);
  const source = {
    name: "test references",
    prefix: ["test_references"],
    keysOf: (entry: Deno.KvEntry<unknown>) => entry.value as string[],
  };
  const result = await collectUnreferencedBlobs(ctx.services, { sources: [source] });
  assert.equal(result.complete, true);
  assert.equal(result.last?.marked, named.length);
  assert.equal(result.last?.deleted, 1);
  assert.equal(await blobs.has(orphan), false);
  assert.deepEqual(await allKeys(blobs), new Set(named));
});
