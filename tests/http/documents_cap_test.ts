/**
 * The per-organization document cap: one more upload is 409 and changes nothing, and
 * concurrent uploads near the cap never pass it (the count is checked in the same atomic
 * commit as the insert).
 */
import assert from "node:assert/strict";
import { MAX_DOCUMENTS } from "../../src/domain/documents.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";

async function fill(ctx: TestApp, ws: { orgId: string; owner: string }, count: number) {
  const pdf = await makePdf();
  for (let i = 0; i < count; i++) {
    const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes: pdf, query: `title=D${i}` });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }
  return pdf;
}

async function countDocuments(ctx: TestApp, ws: { orgId: string; owner: string }) {
  const res = await ctx.call("GET", `/organizations/${ws.orgId}/documents`, { token: ws.owner });
  return (await res.json()).documents.length as number;
}

Deno.test("[http] documents: one upload past the cap is 409 and changes nothing", async () => {
  await using ctx = await createTestApp();
  const ws = await documentsWorkspace(ctx);
  const pdf = await fill(ctx, ws, MAX_DOCUMENTS);
  const before = await snapshotKv(ctx.kv);
  const res = await upload(ctx, ws.orgId, { token: ws.owner, bytes: pdf, query: "title=More" });
  assert.equal(res.status, 409);
  const { error } = await res.json();
  assert.equal(error.code, "conflict");
  assert.match(error.message, new RegExp(`at most ${MAX_DOCUMENTS} documents`));
  assert.equal(await snapshotKv(ctx.kv), before);
  assert.equal(await countDocuments(ctx, ws), MAX_DOCUMENTS);
});

Deno.test("[http] documents: concurrent uploads never pass the cap", async () => {
  await using ctx = await createTestApp();
  const ws = await documentsWorkspace(ctx);
  const pdf = await fill(ctx, ws, MAX_DOCUMENTS - 3);
  const responses = await Promise.all(
    Array.from(
      { length: 8 },
      (_, i) => upload(ctx, ws.orgId, { token: ws.owner, bytes: pdf, query: `title=Race${i}` }),
    ),
  );
  for (const res of responses) await res.body?.cancel();
  const statuses = responses.map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, 201, 201, 409, 409, 409, 409, 409]);
  assert.equal(await countDocuments(ctx, ws), MAX_DOCUMENTS);
  // A removal frees a place at once.
  const { documents } = await (await ctx.call("GET", `/organizations/${ws.orgId}/documents`, {
    token: ws.owner,
  })).json();
  const removed = await ctx.call(
    "DELETE",
    `/organizations/${ws.orgId}/documents/${documents[0].id}`,
    {
      token: ws.owner,
    },
  );
  assert.equal(removed.status, 200);
  await removed.body?.cancel();
  const again = await upload(ctx, ws.orgId, { token: ws.owner, bytes: pdf, query: "title=Again" });
  assert.equal(again.status, 201);
  await again.body?.cancel();
});
