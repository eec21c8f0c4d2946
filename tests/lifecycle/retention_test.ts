import assert from "node:assert/strict";
import { pruneProject } from "../../src/lifecycle/retention.ts";
import { pruneJobId, schedulePruning } from "../../src/lifecycle/prune_job.ts";
import { listEvidenceByProject } from "../../src/store/evidence.ts";
import { getJob } from "../../src/store/jobs.ts";
import { getBlobGcSummary } from "../../src/store/blob_gc.ts";
import {
  commitPrune,
  getPruneState,
  listPruneCandidates,
  stageCitations,
} from "../../src/store/retention.ts";
import { getEvidenceMany } from "../../src/store/evidence.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  collector,
  evidenceItem,
  publishVersion,
  sbomPayload,
  type Workspace,
  workspace,
} from "../support/fixtures.ts";

const DAY_MINUTES = 24 * 60;

/** Sends one record per entry of `daysAgo` (seeded so each payload differs); their ids. */
async function send(
  ctx: TestApp,
  ws: Workspace,
  secret: string,
  daysAgo: number[],
  options: { evidenceType?: string; seed?: number } = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < daysAgo.length; i += 100) {
    const items = daysAgo.slice(i, i + 100).map((days, j) =>
      evidenceItem(ctx, sbomPayload((options.seed ?? 0) + i + j, 300), {
        evidenceType: options.evidenceType ?? "sbom",
        minutesAgo: days * DAY_MINUTES + 1,
      })
    );
    const res = await ctx.call("POST", "/ingest/evidence/batch", {
      json: { projectId: ws.project.id, records: items },
      headers: { authorization: `Bearer ${secret}` },
    });
    assert.equal(res.status, 201, await res.clone().text());
    ids.push(...(await res.json()).records.map((r: { id: string }) => r.id));
  }
  return ids;
}

/** The observation ages (days, rounded) of the project's records of one type, newest first. */
async function agesOf(ctx: TestApp, ws: Workspace, evidenceType = "sbom"): Promise<number[]> {
  const page = await listEvidenceByProject(ctx.kv, ws.project.id, {
    evidenceType: evidenceType as "sbom",
    limit: 100,
  });
  const now = ctx.clock.now().getTime();
  return page.values.map((r) => Math.round((now - Date.parse(r.observedAt)) / 86_400_000));
}

async function setRetention(ctx: TestApp, ws: Workspace, days: number, recordsPerType: number) {
  const res = await ctx.call("PUT", `/projects/${ws.project.id}/retention`, {
    token: ws.token,
    json: { days, recordsPerType },
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
}

Deno.test("[lifecycle] retention keeps N days or the last K, whichever keeps more", async (t) => {
  const cases = [
    {
      name: "days keep more",
      days: 10,
      records: 2,
      sent: [30, 20, 8, 5, 2, 1],
      kept: [1, 2, 5, 8],
    },
    {
      name: "records keep more",
      days: 3,
      records: 4,
      sent: [30, 20, 8, 5, 2, 1],
      kept: [1, 2, 5, 8],
    },
    {
      name: "both keep the same",
      days: 6,
      records: 3,
      sent: [30, 20, 8, 5, 2, 1],
      kept: [1, 2, 5],
    },
    { name: "the latest always stays", days: 1, records: 1, sent: [90, 60, 40], kept: [40] },
  ];
  for (const row of cases) {
    await t.step(row.name, async () => {
      await using ctx = await createTestApp();
      const ws = await workspace(ctx, "alice");
      const c = await collector(ctx, ws);
      await send(ctx, ws, c.secret, row.sent);
      await setRetention(ctx, ws, row.days, row.records);
      const result = await pruneProject(ctx.services, ws.project);
      assert.equal(result.complete, true);
      assert.equal(result.pruned.records, row.sent.length - row.kept.length);
      assert.deepEqual(await agesOf(ctx, ws), row.kept);
    });
  }
});

Deno.test("[lifecycle] retention keeps every record a published version cites", async (t) => {
  for (const older of [false, true]) {
    const name = older
      ? "cited by a version published before citations were recorded (backfilled)"
      : "cited by a version (recorded as it was published)";
    await t.step(name, async () => {
      await using ctx = await createTestApp();
      const ws = await workspace(ctx, "alice");
      const c = await collector(ctx, ws);
      await send(ctx, ws, c.secret, [40], { seed: 100 });
      await send(ctx, ws, c.secret, [50], { evidenceType: "vulnerability_scan", seed: 200 });
      await publishVersion(ctx, ws);
      if (older) {
        for await (const entry of ctx.kv.list({ prefix: ["evidence_citations"] })) {
          await ctx.kv.delete(entry.key);
        }
      }
      // Newer records make the cited ones old and no longer the latest.
      await send(ctx, ws, c.secret, [30, 20, 2, 1], { seed: 300 });
      await send(ctx, ws, c.secret, [35, 3], { evidenceType: "vulnerability_scan", seed: 400 });
      await setRetention(ctx, ws, 5, 1);
      const result = await pruneProject(ctx.services, ws.project);
      assert.equal(result.pruned.records, 3);
      assert.deepEqual(await agesOf(ctx, ws), [1, 2, 40]);
      assert.deepEqual(await agesOf(ctx, ws, "vulnerability_scan"), [3, 50]);
    });
  }
});

Deno.test("[lifecycle] pruning removes in batches and resumes from its cursor", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const old = Array.from({ length: 250 }, (_, i) => 400 - i);
  await send(ctx, ws, c.secret, [...old, 1]);
  await send(ctx, ws, c.secret, [300, 200], { evidenceType: "policy_result", seed: 1000 });
  await setRetention(ctx, ws, 30, 1);
  const count = async () => {
    let n = 0;
    for await (const _ of ctx.kv.list({ prefix: ["evidence"] })) n++;
    return n;
  };
  assert.equal(await count(), 253);

  await t.step("a run stops at its budget, after whole batches of at most 90", async () => {
    // policy_result comes first (one record to remove), then sbom's first batch.
    const first = await pruneProject(ctx.services, ws.project, { maxRecords: 50 });
    assert.equal(first.complete, false);
    assert.equal(first.pruned.records, 1 + 90);
    assert.equal(await count(), 253 - 91);
    const state = (await getPruneState(ctx.kv, ws.project.id)).value;
    assert.equal(state?.run?.records, 91);
    assert.ok(state?.run?.after, "the cursor is kept");
  });

  await t.step(
    "the next call (another instance, after a crash) goes on from the cursor",
    async () => {
      const second = await pruneProject(ctx.services, ws.project, { maxRecords: 1 });
      assert.deepEqual([second.complete, second.pruned.records], [false, 181]);
      assert.equal(await count(), 253 - 181);
      const third = await pruneProject(ctx.services, ws.project);
      assert.deepEqual([third.complete, third.pruned.records], [true, 251]);
      assert.equal(await count(), 2);
      assert.deepEqual(await agesOf(ctx, ws), [1]);
      assert.deepEqual(await agesOf(ctx, ws, "policy_result"), [200]);
      const state = (await getPruneState(ctx.kv, ws.project.id)).value;
      assert.equal(state?.run, null);
      assert.equal(state?.lastRun?.records, 251);
    },
  );

  await t.step("the daily job runs a run to its end and is due again a day later", async () => {
    await send(ctx, ws, c.secret, [100, 90, 80], { seed: 2000 });
    await schedulePruning(ctx.kv, ws.project, { now: ctx.clock.now(), dueAt: 0 });
    await ctx.services.jobs.drain(20_000);
    assert.deepEqual(await agesOf(ctx, ws), [1]);
    const job = await getJob(ctx.kv, pruneJobId(ws.project.id));
    assert.equal(job?.message.organizationId, ws.organization.id);
    assert.equal(job?.dueAt, ctx.clock.now().getTime() + 24 * 3600 * 1000);
    // The pruned payloads are the blob collector's: its job was asked for, and ran.
    assert.ok(await getBlobGcSummary(ctx.kv));
  });
});

Deno.test("[lifecycle] a pruning commit loses to a version citing a record it removes", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const [old] = await send(ctx, ws, c.secret, [50, 1]);
  await setRetention(ctx, ws, 10, 1);
  await pruneProject(ctx.services, ws.project, { dryRun: true });
  const read = await getPruneState(ctx.kv, ws.project.id);
  const [record] = await getEvidenceMany(ctx.kv, [old]);
  const positions = await listPruneCandidates(ctx.kv, ws.project.id, "sbom", {
    keep: 1,
    cutoffMs: ctx.clock.now().getTime() - 10 * 86_400_000,
    after: null,
    limit: 90,
  });
  assert.deepEqual(positions.map((p) => p.id), [old]);
  // A version citing the record commits between the candidates' read and the removal.
  const op = ctx.kv.atomic();
  stageCitations(op, ws.project.id, [record!.checksum], 1);
  assert.equal((await op.commit()).ok, true);
  const next = { citationsThrough: 0, run: null, lastRun: null };
  const removed = await commitPrune(ctx.kv, read, {
    projectId: ws.project.id,
    stream: "sbom",
    positions,
    records: [record!],
    next,
  });
  assert.equal(removed, false);
  assert.ok((await getEvidenceMany(ctx.kv, [old]))[0]);
  // A run now keeps it: it is cited.
  const result = await pruneProject(ctx.services, ws.project);
  assert.equal(result.pruned.records, 0);
});
