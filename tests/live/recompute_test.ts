import assert from "node:assert/strict";
import { listEvaluations, recomputeProject } from "../../src/live/recompute.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";

const HOUR = 3600_000;

function deps(ctx: TestApp) {
  return { kv: ctx.kv, blobs: ctx.services.blobs };
}

Deno.test("[live] recomputeProject() never replaces evaluations with older ones", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const t1 = ctx.clock.now();
  const t2 = new Date(t1.getTime() + HOUR);

  await t.step("a recompute at T1 after one at T2 keeps and answers T2's", async () => {
    await recomputeProject(deps(ctx), ws.project.id, t2);
    const older = await recomputeProject(deps(ctx), ws.project.id, t1);
    assert.ok(older.evaluations.every((e) => e.updatedAt === t2.toISOString()));
    assert.deepEqual(older.changed, []);
    const stored = await listEvaluations(ctx.kv, ws.project.id);
    assert.ok(stored.length > 0 && stored.every((e) => e.updatedAt === t2.toISOString()));
  });

  await t.step("of concurrent recomputes at different instants the latest stays", async () => {
    const instants = [5, 2, 9, 1, 7, 3, 8, 4, 6, 0].map((h) => new Date(t2.getTime() + h * HOUR));
    await Promise.all(instants.map((at) => recomputeProject(deps(ctx), ws.project.id, at)));
    const latest = new Date(t2.getTime() + 9 * HOUR).toISOString();
    const stored = await listEvaluations(ctx.kv, ws.project.id);
    assert.ok(stored.every((e) => e.updatedAt === latest));
  });
});

Deno.test("[live] a recompute handled twice at once publishes one version", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { visibility: "public" });
  const on = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { autoPublish: true },
  });
  assert.equal(on.status, 200);
  await on.body?.cancel();
  const c = await collector(ctx, ws);
  const first = await ctx.call("POST", `/projects/${ws.project.id}/publish`, { token: ws.token });
  assert.equal(first.status, 201);
  const ing = await ctx.call("POST", "/ingest/evidence", {
    json: { projectId: ws.project.id, ...evidenceItem(ctx, sbomPayload(1)) },
    headers: { authorization: `Bearer ${c.secret}` },
  });
  assert.equal(ing.status, 201);
  // Two instances got the same queue message.
  const results = await Promise.all([
    ctx.services.scheduler.recompute(ws.project.id),
    ctx.services.scheduler.recompute(ws.project.id),
  ]);
  assert.deepEqual(
    results.map((r) => r!.changed.length > 0).sort(),
    [false, true],
    "one of them saw the change",
  );
  const { versions } = await (await ctx.call("GET", `/trust/${ws.project.slug}/versions`)).json();
  assert.deepEqual(versions.map((v: { version: number }) => v.version), [2, 1]);
});

Deno.test("[live] evaluations stored one per control are read, then replaced", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const before = await recomputeProject(deps(ctx), ws.project.id, ctx.clock.now());
  // What the previous version of the service left behind: one entry per control.
  for (const evaluation of before.evaluations) {
    await ctx.kv.set(["evaluations", ws.project.id, evaluation.trustControlId], evaluation);
  }
  await ctx.kv.delete(["evaluations_head", ws.project.id]);
  assert.deepEqual(await listEvaluations(ctx.kv, ws.project.id), before.evaluations);

  ctx.clock.advance(60_000);
  const after = await recomputeProject(deps(ctx), ws.project.id, ctx.clock.now());
  assert.deepEqual(after.changed, [], "measured against the stored states");
  assert.deepEqual(await listEvaluations(ctx.kv, ws.project.id), after.evaluations);
  const legacy = [];
  for await (const entry of ctx.kv.list({ prefix: ["evaluations", ws.project.id] })) {
    legacy.push(entry);
  }
  assert.deepEqual(legacy, []);
});
