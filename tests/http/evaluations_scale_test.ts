/**
 * Evaluations at scale: many controls, the per-project cap, and concurrent
 * recomputes of one project.
 */
import assert from "node:assert/strict";
import { MAX_CONTROLS_PER_PROJECT } from "../../src/domain/control.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import {
  collector,
  evidenceItem,
  sbomPayload,
  type Workspace,
  workspace,
} from "../support/fixtures.ts";

/** Adds custom controls until the project has `total`, `publicName` from `name(i)`. */
async function addControls(
  ctx: TestApp,
  ws: Workspace,
  total: number,
  name = (i: number) => `Custom control ${i}`,
) {
  const path = `/projects/${ws.project.id}/controls`;
  const { controls } = await (await ctx.call("GET", path, { token: ws.token })).json();
  for (let i = controls.length; i < total; i++) {
    const res = await ctx.call("POST", path, {
      token: ws.token,
      json: {
        key: `custom.control-${i}`,
        publicName: name(i),
        evidenceType: i % 2 ? "sbom" : "vulnerability_scan",
        rule: i % 3 ? { path: "components.0.name", op: "eq", value: "left-pad" } : null,
      },
    });
    assert.equal(res.status, 201, await res.text());
  }
}

async function recomputeAndPublish(ctx: TestApp, ws: Workspace, expected: number) {
  const recompute = await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
    token: ws.token,
  });
  assert.equal(recompute.status, 200, await recompute.clone().text());
  assert.equal((await recompute.json()).evaluations.length, expected);
  const listed = await ctx.call("GET", `/projects/${ws.project.id}/evaluations`, {
    token: ws.token,
  });
  assert.equal((await listed.json()).evaluations.length, expected);
  for (let i = 0; i < 2; i++) {
    const publish = await ctx.call("POST", `/projects/${ws.project.id}/publish`, {
      token: ws.token,
    });
    assert.equal(publish.status, 201, await publish.clone().text());
    assert.equal((await publish.json()).publishedProfile.version, i + 1);
  }
  const page = await ctx.call("GET", `/trust/${ws.project.slug}/trust.json`);
  assert.equal((await page.json()).controls.length, expected);
  const versions = await (await ctx.call("GET", `/trust/${ws.project.slug}/versions`)).json();
  assert.equal(versions.versions[1].changes.length, expected, "version 1 lists every control");
}

Deno.test("[http] controls: 150 controls recompute and publish", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { visibility: "public" });
  const c = await collector(ctx, ws);
  const ing = await ctx.call("POST", "/ingest/evidence", {
    json: { projectId: ws.project.id, ...evidenceItem(ctx, sbomPayload(1)) },
    headers: { authorization: `Bearer ${c.secret}` },
  });
  assert.equal(ing.status, 201);
  await addControls(ctx, ws, 150);
  await recomputeAndPublish(ctx, ws, 150);
});

Deno.test("[http] controls: a project holds at most MAX_CONTROLS_PER_PROJECT controls", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { visibility: "public" });
  // The largest names allowed, in a script V8 stores with two bytes per character.
  const name = (i: number) => `${i} ${"名".repeat(190)}`;
  await addControls(ctx, ws, MAX_CONTROLS_PER_PROJECT, name);

  await t.step("one more is 409 and changes nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const res = await ctx.call("POST", `/projects/${ws.project.id}/controls`, {
      token: ws.token,
      json: { key: "custom.one-too-many", publicName: "One too many", evidenceType: "sbom" },
    });
    assert.equal(res.status, 409);
    const { error } = await res.json();
    assert.equal(error.code, "conflict");
    assert.match(error.message, new RegExp(`at most ${MAX_CONTROLS_PER_PROJECT} controls`));
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("recompute and publish work at the cap", async () => {
    await recomputeAndPublish(ctx, ws, MAX_CONTROLS_PER_PROJECT);
  });
});

Deno.test("[http] controls: concurrent creations never pass the cap", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  await addControls(ctx, ws, MAX_CONTROLS_PER_PROJECT - 3);
  const responses = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      ctx.call("POST", `/projects/${ws.project.id}/controls`, {
        token: ws.token,
        json: { key: `custom.race-${i}`, publicName: `Race ${i}`, evidenceType: "sbom" },
      })),
  );
  const statuses = responses.map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, 201, 201, 409, 409, 409, 409, 409]);
  const { controls } = await (await ctx.call("GET", `/projects/${ws.project.id}/controls`, {
    token: ws.token,
  })).json();
  assert.equal(controls.length, MAX_CONTROLS_PER_PROJECT);
});

Deno.test("[http] evaluations: 10 concurrent recomputes of one project all answer 200", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  await addControls(ctx, ws, 40);
  const ing = await ctx.call("POST", "/ingest/evidence", {
    json: { projectId: ws.project.id, ...evidenceItem(ctx, sbomPayload(1)) },
    headers: { authorization: `Bearer ${c.secret}` },
  });
  assert.equal(ing.status, 201);
  const responses = await Promise.all(
    Array.from(
      { length: 10 },
      () =>
        ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, { token: ws.token }),
    ),
  );
  const bodies = [];
  for (const res of responses) {
    assert.equal(res.status, 200, await res.clone().text());
    bodies.push(JSON.stringify((await res.json()).evaluations));
  }
  assert.equal(new Set(bodies).size, 1, "the same evidence at the same instant, the same answer");
  const stored = await (await ctx.call("GET", `/projects/${ws.project.id}/evaluations`, {
    token: ws.token,
  })).json();
  assert.equal(JSON.stringify(stored.evaluations), bodies[0]);
});
