/**
 * Bounded PDF work: uploads refuse PDFs of more than 2 000 pages (counted cheaply for
 * uncompressed page objects, by a parse for compressed ones), a recipient's PDF is stamped
 * once and the stamped copy served again, and stamping runs under a per-instance limiter
 * whose full queue answers 503 with Retry-After. The large PDFs are built at test time.
 */
import assert from "node:assert/strict";
import { PDFDocument } from "@cantoo/pdf-lib";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import {
  compressedManyPagePdf,
  documentsWorkspace,
  makePdf,
  manyPagePdf,
  upload,
} from "../support/documents.ts";

Deno.test("[http] documents: a PDF of more than 2000 pages is refused at upload", async (t) => {
  await using ctx = await createTestApp();
  const ws = await documentsWorkspace(ctx);

  await t.step("100 000 pages (10 MB): 413 at once, naming the count; nothing stored", async () => {
    const before = await snapshotKv(ctx.kv);
    const bytes = manyPagePdf(100_000);
    const started = performance.now();
    const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes });
    const elapsed = performance.now() - started;
    assert.equal(res.status, 413);
    const { error } = await res.json();
    assert.equal(error.code, "payload_too_large");
    assert.equal(error.message, "A PDF may have at most 2000 pages; this one has 100000");
    assert.ok(elapsed < 5000, `refused in ${elapsed.toFixed(0)} ms`);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("2001 pages: 413", async () => {
    const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes: manyPagePdf(2001) });
    assert.equal(res.status, 413);
    assert.match((await res.json()).error.message, /this one has 2001$/);
  });

  await t.step("2001 pages inside a compressed object stream: 413 too", async () => {
    const bytes = await compressedManyPagePdf(2001);
    assert.ok(!new TextDecoder("latin1").decode(bytes).includes("/Type /Page "));
    const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes });
    assert.equal(res.status, 413);
    assert.match((await res.json()).error.message, /this one has 2001$/);
  });

  await t.step("2000 pages are accepted", async () => {
    const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes: manyPagePdf(2000) });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  });
});

/** An NDA, a restricted PDF, and a helper granting `email` a link to it. */
async function restrictedPdf(ctx: TestApp, bytes: Uint8Array) {
  const ws = await documentsWorkspace(ctx);
  const uploaded = await upload(ctx, ws.orgId, { token: ws.owner, bytes, query: "title=SOC%202" });
  assert.equal(uploaded.status, 201);
  const docId = (await uploaded.json()).document.id as string;
  await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "NDA" },
  })
    .then((res) => res.body?.cancel());
  const grant = async (email: string) => {
    const asked = await ctx.call("POST", `/public/trust/${ws.orgSlug}/access-requests`, {
      json: {
        name: "Vera Visitor",
        email,
        company: "Customer Inc",
        documentIds: [docId],
        ndaVersion: 1,
        acceptNda: true,
      },
    });
    assert.equal(asked.status, 202, await asked.clone().text());
    const { id } = await asked.json();
    const approved = await ctx.call(
      "POST",
      `/organizations/${ws.orgId}/access-requests/${id}/approve`,
      { token: ws.owner, json: {} },
    );
    assert.equal(approved.status, 200);
    const url = new URL((await approved.json()).link.url);
    return `${url.pathname}/${docId}`;
  };
  return { ws, docId, grant };
}

/** Holds `n` slots of the app's stamping limiter until the returned function is called. */
function occupy(ctx: TestApp, n: number): () => Promise<void> {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  const held = Array.from({ length: n }, () => ctx.services.stamping.run(() => gate));
  return async () => {
    release();
    await Promise.all(held);
  };
}

Deno.test("[http] documents: a recipient's PDF is stamped once and the stamped copy served again", async (t) => {
  await using ctx = await createTestApp({
    stampingLimits: { concurrency: 2, maxWaiting: 0, maxWaitMs: 1000 },
  });
  const { ws, grant } = await restrictedPdf(ctx, await makePdf("Restricted report"));
  const vera = await grant("vera@customer.test");
  const wendy = await grant("wendy@customer.test");

  let first: Uint8Array;
  await t.step("the first download stamps the PDF for its recipient", async () => {
    const res = await ctx.call("GET", vera);
    assert.equal(res.status, 200);
    first = new Uint8Array(await res.arrayBuffer());
    const doc = await PDFDocument.load(first, { updateMetadata: false });
    assert.equal(doc.getSubject(), "Provided to vera@customer.test on 2026-11-01");
    const stamps = await Array.fromAsync(ctx.kv.list({ prefix: ["document_stamps"] }));
    assert.equal(stamps.length, 1);
  });

  await t.step("later downloads reuse it, even when no stamping slot is free", async () => {
    const release = occupy(ctx, 2);
    try {
      ctx.clock.advance(3 * 86_400_000);
      const again = await ctx.call("GET", vera);
      assert.equal(again.status, 200);
      assert.deepEqual(new Uint8Array(await again.arrayBuffer()), first);
      const other = await ctx.call("GET", wendy);
      assert.equal(other.status, 503);
      assert.equal(other.headers.get("retry-after"), "5");
      assert.match(other.headers.get("content-type")!, /text\/html/);
      await other.body?.cancel();
    } finally {
      await release();
    }
    const stamps = await Array.fromAsync(ctx.kv.list({ prefix: ["document_stamps"] }));
    assert.equal(stamps.length, 1);
  });

  await t.step("each served download is logged; the refused one is not", async () => {
    // The clock moved three days: the owner signs in again.
    const owner = await ctx.tokenFor("owner", { email: "owner@acme.test" });
    const res = await ctx.call("GET", `/organizations/${ws.orgId}/document-downloads`, {
      token: owner,
    });
    const { downloads } = await res.json();
    assert.equal(downloads.length, 2);
    assert.ok(downloads.every((d: { email: string }) => d.email === "vera@customer.test"));
    assert.ok(downloads.every((d: { watermarked: boolean }) => d.watermarked));
  });

  await t.step("another recipient gets their own stamp once a slot is free", async () => {
    const res = await ctx.call("GET", wendy);
    assert.equal(res.status, 200);
    const doc = await PDFDocument.load(new Uint8Array(await res.arrayBuffer()));
    assert.match(doc.getSubject() ?? "", /^Provided to wendy@customer\.test on /);
  });
});

Deno.test("[http] documents: stamping waits in a bounded queue, beyond it 503", async () => {
  await using ctx = await createTestApp({
    stampingLimits: { concurrency: 2, maxWaiting: 2, maxWaitMs: 10_000 },
  });
  const { grant } = await restrictedPdf(ctx, manyPagePdf(50));
  const links = await Promise.all(
    ["a", "b", "c", "d"].map((name) => grant(`${name}@customer.test`)),
  );
  const release = occupy(ctx, 2);
  const waiting = links.slice(0, 2).map((link) => ctx.call("GET", link));
  // Let both reach the queue before the next arrives.
  for (let i = 0; i < 50 && ctx.services.stamping.stats().waiting < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.deepEqual(ctx.services.stamping.stats(), { running: 2, waiting: 2 });
  const refused = await ctx.call("GET", links[2]);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get("retry-after"), "5");
  await refused.body?.cancel();
  await release();
  for (const res of await Promise.all(waiting)) {
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  assert.deepEqual(ctx.services.stamping.stats(), { running: 0, waiting: 0 });
});

Deno.test("[http] documents: an upload finding the PDF work limit full answers 503", async () => {
  await using ctx = await createTestApp({
    stampingLimits: { concurrency: 1, maxWaiting: 0, maxWaitMs: 1000 },
  });
  const ws = await documentsWorkspace(ctx);
  const release = occupy(ctx, 1);
  try {
    const before = await snapshotKv(ctx.kv);
    const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes: await makePdf() });
    assert.equal(res.status, 503);
    assert.equal(res.headers.get("retry-after"), "5");
    assert.equal((await res.json()).error.code, "unavailable");
    assert.equal(await snapshotKv(ctx.kv), before);
  } finally {
    await release();
  }
});
