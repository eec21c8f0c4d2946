import assert from "node:assert/strict";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, team } from "../support/fixtures.ts";

const DAY_MINUTES = 24 * 60;

async function status(ctx: TestApp, method: string, path: string, token?: string, json?: unknown) {
  const res = await ctx.call(method, path, { token, json });
  await res.body?.cancel();
  return res.status;
}

Deno.test("[http] retention and usage: who may read and change them", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, project } = await team(ctx);
  const setting = { days: 30, recordsPerType: 5 };
  const routes = [
    { method: "GET", path: `/projects/${project.id}/retention`, member: 200 },
    { method: "PUT", path: `/projects/${project.id}/retention`, member: 403, json: setting },
    { method: "POST", path: `/projects/${project.id}/retention/prune`, member: 403 },
    { method: "GET", path: `/organizations/${orgId}/retention`, member: 200 },
    { method: "PUT", path: `/organizations/${orgId}/retention`, member: 403, json: setting },
    { method: "GET", path: `/organizations/${orgId}/usage`, member: 200 },
  ];
  for (const route of routes) {
    await t.step(`${route.method} ${route.path.replace(/[0-9a-f-]{36}/g, "{id}")}`, async () => {
      const before = await snapshotKv(ctx.kv);
      assert.equal(await status(ctx, route.method, route.path, undefined, route.json), 401);
      assert.equal(await status(ctx, route.method, route.path, stranger, route.json), 403);
      const byMember = await status(ctx, route.method, route.path, member, route.json);
      assert.equal(byMember, route.member);
      if (route.method !== "GET") assert.equal(await snapshotKv(ctx.kv), before);
      assert.equal(await status(ctx, route.method, route.path, owner, route.json), 200);
    });
  }
  await t.step("an unknown project or organization is 403, as for a stranger", async () => {
    const unknown = crypto.randomUUID();
    assert.equal(await status(ctx, "GET", `/projects/${unknown}/retention`, owner), 403);
    assert.equal(await status(ctx, "GET", `/organizations/${unknown}/usage`, owner), 403);
  });
});

Deno.test("[http] retention settings inherit project → organization → service", async (t) => {
  await using ctx = await createTestApp({
    env: { EVIDENCE_RETENTION_DAYS: "60", EVIDENCE_RETENTION_RECORDS: "20" },
  });
  const { owner, orgId, project } = await team(ctx);
  const get = async (
    path: string,
  ) => (await (await ctx.call("GET", path, { token: owner })).json());

  await t.step("without settings, the service's", async () => {
    const { retention } = await get(`/projects/${project.id}/retention`);
    assert.deepEqual(retention, {
      setting: { days: null, recordsPerType: null },
      effective: {
        days: 60,
        recordsPerType: 20,
        daysFrom: "service",
        recordsPerTypeFrom: "service",
      },
    });
  });

  await t.step("the organization's default, then the project's own", async () => {
    const org = await ctx.call("PUT", `/organizations/${orgId}/retention`, {
      token: owner,
      json: { days: 30, recordsPerType: null },
    });
    assert.equal(org.status, 200);
    assert.equal((await org.json()).retention.effective.daysFrom, "organization");
    await ctx.call("PUT", `/projects/${project.id}/retention`, {
      token: owner,
      json: { days: null, recordsPerType: 3 },
    }).then((r) => r.body?.cancel());
    const { retention } = await get(`/projects/${project.id}/retention`);
    assert.deepEqual(retention.effective, {
      days: 30,
      recordsPerType: 3,
      daysFrom: "organization",
      recordsPerTypeFrom: "project",
    });
  });

  await t.step("bad values are a 400 that changes nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    for (
      const json of [
        { days: 0, recordsPerType: null },
        { days: 1.5, recordsPerType: null },
        { days: null },
        { days: 10, recordsPerType: 10, extra: true },
        { days: "10", recordsPerType: 10 },
        { days: 10, recordsPerType: 1_000_000 },
      ]
    ) {
      const res = await ctx.call("PUT", `/projects/${project.id}/retention`, {
        token: owner,
        json,
      });
      assert.equal(res.status, 400, JSON.stringify(json));
      assert.equal((await res.json()).error.code, "validation_failed");
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });
});

Deno.test("[http] usage counts records, blob and KV bytes, and what the next prune removes", async () => {
  await using ctx = await createTestApp();
  const { owner, orgId, project } = await team(ctx);
  const ws = { token: owner, project: { ...project, organizationId: orgId } } as never;
  const c = await collector(ctx, ws);
  const ages = [60, 50, 40, 2, 1];
  const res = await ctx.call("POST", "/ingest/evidence/batch", {
    json: {
      projectId: project.id,
      records: ages.map((days, i) =>
        evidenceItem(ctx, sbomPayload(i, 2000 + i * 1000), { minutesAgo: days * DAY_MINUTES })
      ),
    },
    headers: { authorization: `Bearer ${c.secret}` },
  });
  assert.equal(res.status, 201);
  await res.body?.cancel();
  await ctx.call("PUT", `/projects/${project.id}/retention`, {
    token: owner,
    json: { days: 10, recordsPerType: 1 },
  }).then((r) => r.body?.cancel());
  // Every blob is this project's: its payloads and (after a publish) its artifacts.
  const publish = await ctx.call("POST", `/projects/${project.id}/publish`, { token: owner });
  assert.equal(publish.status, 201);
  await publish.body?.cancel();
  const storedBytes = async () => {
    let total = 0;
    for (const blob of await ctx.services.blobs.list({ limit: 1000 })) total += blob.size;
    return total;
  };

  const usage = await (await ctx.call("GET", `/organizations/${orgId}/usage`, { token: owner }))
    .json();
  assert.equal(usage.measuredAt, ctx.clock.now().toISOString());
  assert.equal(usage.projects.length, 1);
  const [row] = usage.projects;
  assert.equal(row.projectId, project.id);
  assert.equal(row.evidenceRecords, ages.length);
  assert.equal(row.blobBytes, await storedBytes());
  assert.ok(row.kvBytes > 5 * 1000, `${row.kvBytes} KV bytes`);
  assert.equal(row.retention.days, 10);
  assert.equal(row.nextPrune.records, 3);
  const oldest = await Promise.all(
    (await ctx.services.blobs.list({ limit: 1000 }))
      .filter((b) => b.key.startsWith("evidence/"))
      .map((b) => b.size)
      .sort((a, b) => a - b)
      .slice(0, 3),
  );
  assert.equal(row.nextPrune.payloadBytes, oldest.reduce((a, b) => a + b, 0));

  const pruned = await ctx.call("POST", `/projects/${project.id}/retention/prune`, {
    token: owner,
  });
  assert.equal(pruned.status, 200);
  assert.deepEqual(await pruned.json(), { pruned: row.nextPrune, complete: true });
  const after = (await (await ctx.call("GET", `/organizations/${orgId}/usage`, { token: owner }))
    .json()).projects[0];
  assert.equal(after.evidenceRecords, 2);
  assert.ok(after.kvBytes < row.kvBytes);
  assert.equal(after.blobBytes, row.blobBytes - row.nextPrune.payloadBytes);
  assert.deepEqual(after.nextPrune, { records: 0, payloadBytes: 0 });
});
