import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";

type Change = { key: string; name: string; from: string | null; to: string | null };

async function preview(ctx: TestApp, token: string | undefined, projectId: string) {
  return await ctx.call("GET", `/projects/${projectId}/publish/preview`, { token });
}

async function storedKeys(ctx: TestApp): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of ctx.kv.list({ prefix: [] })) keys.push(JSON.stringify(entry.key));
  return keys.sort();
}

Deno.test("[http] publish preview: what a publish would change, nothing published", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const id = ws.project.id;
  const read = async () => {
    const res = await preview(ctx, ws.token, id);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    return (await res.json()).preview;
  };
  const publish = async () => {
    const res = await ctx.call("POST", `/projects/${id}/publish`, { token: ws.token });
    assert.equal(res.status, 201);
    return (await res.json()).publishedProfile.version as number;
  };
  const latestChanges = async (): Promise<Change[]> =>
    (await (await ctx.call("GET", "/trust/acme/versions")).json()).versions[0].changes;

  await t.step("before the first version: every control, from null", async () => {
    const before = await storedKeys(ctx);
    const first = await read();
    assert.deepEqual(await storedKeys(ctx), before, "asking stores nothing");
    assert.equal(first.version, 1);
    assert.equal(first.previousVersion, null);
    assert.equal(first.evaluatedAt, ctx.clock.now().toISOString());
    assert.deepEqual(first.overallState, { from: null, to: "unknown" });
    assert.equal(first.controls.length, 7);
    assert.equal(first.unchangedCount, 0);
    for (const c of first.controls) {
      assert.equal(c.from, null);
      assert.equal(c.to, "unknown");
      assert.ok(c.reason.length > 0, `${c.key} has a reason`);
    }
    const page = await ctx.call("GET", "/trust/acme");
    assert.equal(page.status, 404, "still not published");
    await page.body?.cancel();
  });

  await t.step("right after a publish: nothing would change", async () => {
    assert.equal(await publish(), 1);
    const same = await read();
    assert.equal(same.version, 2);
    assert.equal(same.previousVersion, 1);
    assert.deepEqual(same.overallState, { from: "unknown", to: "unknown" });
    assert.deepEqual(same.controls, []);
    assert.equal(same.unchangedCount, 7);
  });

  await t.step(
    "new evidence: the changed controls with reasons, as the publish then records",
    async () => {
      const c = await collector(ctx, ws);
      const res = await ctx.call("POST", "/ingest/evidence", {
        json: { projectId: id, ...evidenceItem(ctx, sbomPayload(1)) },
        headers: { authorization: `Bearer ${c.secret}` },
      });
      assert.equal(res.status, 201);
      await res.body?.cancel();
      const next = await read();
      assert.equal(next.version, 2);
      const changes = next.controls.map(({ key, from, to }: Change) => ({ key, from, to }));
      assert.deepEqual(changes, [
        { key: "collector.heartbeat", from: "unknown", to: "pass" },
        { key: "evidence.sbom", from: "unknown", to: "pass" },
      ]);
      assert.equal(next.controls[1].name, "Software bill of materials");
      assert.match(next.controls[1].reason, /\S/);
      assert.equal(next.unchangedCount, 5);
      assert.equal(await publish(), 2);
      assert.deepEqual(
        (await latestChanges()).map(({ key, from, to }) => ({ key, from, to })),
        changes,
        "the publish records exactly the previewed changes",
      );
    },
  );

  await t.step("a disabled control is listed as no longer published", async () => {
    const controls = (await (await ctx.call("GET", `/projects/${id}/controls`, {
      token: ws.token,
    })).json()).controls;
    const sbom = controls.find((c: { key: string }) => c.key === "evidence.sbom");
    const res = await ctx.call("PATCH", `/projects/${id}/controls/${sbom.id}`, {
      token: ws.token,
      json: { enabled: false },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const next = await read();
    assert.deepEqual(next.controls, [{
      key: "evidence.sbom",
      name: "Software bill of materials",
      from: "pass",
      to: null,
      reason: "Disabled: no longer published",
    }]);
    assert.equal(next.unchangedCount, 6);
  });

  await t.step("401 without a token, 403 for a stranger, 400 for a bad id", async () => {
    const anonymous = await preview(ctx, undefined, id);
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const stranger = await preview(ctx, await ctx.tokenFor("mallory"), id);
    assert.equal(stranger.status, 403);
    await stranger.body?.cancel();
    const bad = await preview(ctx, ws.token, "not-a-uuid");
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, "validation_failed");
  });
});
