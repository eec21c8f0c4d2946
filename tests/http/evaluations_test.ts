import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";

function ingest(ctx: TestApp, secret: string, projectId: string, item: unknown) {
  return ctx.call("POST", "/ingest/evidence", {
    json: { projectId, ...(item as object) },
    headers: { authorization: `Bearer ${secret}` },
  });
}

function byKey(evaluations: Array<{ control: { key: string }; state: string }>) {
  return Object.fromEntries(evaluations.map((e) => [e.control.key, e.state]));
}

Deno.test("[http] evaluations: recompute from real evidence, deterministic, stored", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const path = `/projects/${ws.project.id}/evaluations`;

  await t.step("before any evidence every control is unknown", async () => {
    const res = await ctx.call("POST", `${path}/recompute`, { token: ws.token });
    assert.equal(res.status, 200);
    const { evaluations } = await res.json();
    assert.equal(evaluations.length, 7);
    assert.ok(
      evaluations.every((e: { state: string; confidence: number }) =>
        e.state === "unknown" && e.confidence === 0
      ),
    );
  });

  await t.step("evidence and a heartbeat drive the states", async () => {
    for (
      const item of [
        evidenceItem(ctx, sbomPayload(1)),
        evidenceItem(ctx, { summary: { critical: 1, high: 0, medium: 0, low: 3 } }, {
          evidenceType: "vulnerability_scan",
        }),
        evidenceItem(ctx, { passed: true }, { evidenceType: "policy_result" }),
      ]
    ) {
      const res = await ingest(ctx, c.secret, ws.project.id, item);
      assert.equal(res.status, 201);
      await res.body?.cancel();
    }
    const hb = await ctx.call("POST", `/collectors/${c.id}/heartbeat`, {
      json: { sourceRef: "ci" },
      headers: { authorization: `Bearer ${c.secret}` },
    });
    assert.equal(hb.status, 200);
    await hb.body?.cancel();
    const { evaluations } = await (await ctx.call("POST", `${path}/recompute`, { token: ws.token }))
      .json();
    assert.deepEqual(byKey(evaluations), {
      "collector.heartbeat": "pass",
      "evidence.sbom": "pass",
      "evidence.vulnerability_scan": "fail",
      "evidence.build_provenance": "unknown",
      "evidence.dependency_inventory": "unknown",
      "evidence.deployment_snapshot": "unknown",
      "evidence.policy_result": "pass",
    });
    const sbom = evaluations.find((e: { control: { key: string } }) =>
      e.control.key === "evidence.sbom"
    );
    assert.equal(sbom.confidence, 1);
    assert.equal(sbom.latestEvidenceAt, new Date(ctx.clock.now().getTime() - 60_000).toISOString());
    assert.equal(
      sbom.freshUntil,
      new Date(Date.parse(sbom.latestEvidenceAt) + 7 * 86400_000).toISOString(),
    );
    assert.equal(sbom.nextCheckAt, sbom.freshUntil);
    assert.ok(sbom.latestEvidenceRecordId);
  });

  await t.step(
    "the same instant gives the same evaluations; GET returns what was stored",
    async () => {
      const first = await (await ctx.call("POST", `${path}/recompute`, { token: ws.token })).json();
      const again = await (await ctx.call("POST", `${path}/recompute`, { token: ws.token })).json();
      assert.deepEqual(again, first);
      const stored = await (await ctx.call("GET", path, { token: ws.token })).json();
      assert.deepEqual(stored, first);
    },
  );

  await t.step("aging turns the sbom degraded, then stale", async () => {
    ctx.clock.advance(8 * 86400_000);
    let token = await ctx.tokenFor("alice");
    let states = byKey(
      (await (await ctx.call("POST", `${path}/recompute`, { token })).json()).evaluations,
    );
    assert.equal(states["evidence.sbom"], "degraded");
    ctx.clock.advance(30 * 86400_000);
    token = await ctx.tokenFor("alice");
    states = byKey(
      (await (await ctx.call("POST", `${path}/recompute`, { token })).json()).evaluations,
    );
    assert.equal(states["evidence.sbom"], "stale");
    assert.equal(states["collector.heartbeat"], "stale");
  });
});

Deno.test("[http] controls: custom rules, policies, enabling", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice");
  const c = await collector(ctx, ws);
  const controls = `/projects/${ws.project.id}/controls`;

  await t.step("a custom control with a rule is judged by it", async () => {
    const res = await ctx.call("POST", controls, {
      token: ws.token,
      json: {
        key: "custom.no-critical",
        publicName: "No critical vulnerabilities",
        evidenceType: "vulnerability_scan",
        rule: { path: "summary.critical", op: "eq", value: 0 },
      },
    });
    assert.equal(res.status, 201);
    const { control } = await res.json();
    assert.equal(control.category, "evidence");
    const ing = await ingest(
      ctx,
      c.secret,
      ws.project.id,
      evidenceItem(ctx, {
        summary: { critical: 0, high: 2, medium: 0, low: 0 },
      }, { evidenceType: "vulnerability_scan" }),
    );
    await ing.body?.cancel();
    const { evaluations } =
      await (await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
        token: ws.token,
      })).json();
    const states = byKey(evaluations);
    assert.equal(states["custom.no-critical"], "pass");
    assert.equal(
      states["evidence.vulnerability_scan"],
      "fail",
      "high findings exceed the default medium",
    );
  });

  await t.step("a taken key is 409; keys must start with custom.", async () => {
    const dup = await ctx.call("POST", controls, {
      token: ws.token,
      json: { key: "custom.no-critical", publicName: "Again", evidenceType: "sbom" },
    });
    assert.equal(dup.status, 409);
    await dup.body?.cancel();
    const reserved = await ctx.call("POST", controls, {
      token: ws.token,
      json: { key: "evidence.sbom", publicName: "Mine", evidenceType: "sbom" },
    });
    assert.equal(reserved.status, 400);
    await reserved.body?.cancel();
  });

  const list = await (await ctx.call("GET", controls, { token: ws.token })).json();
  const sbom = list.controls.find((x: { key: string }) => x.key === "evidence.sbom");

  const invalid: Array<[string, unknown]> = [
    ["windowSeconds 0", { freshnessPolicyJson: { kind: "time_window", windowSeconds: 0 } }],
    ["negative threshold", {
      degradationPolicyJson: { staleAfterSeconds: -1, degradedAfterSeconds: null },
    }],
    ["degraded after stale", {
      degradationPolicyJson: { staleAfterSeconds: 10, degradedAfterSeconds: 20 },
    }],
    ["fractional window", { freshnessPolicyJson: { kind: "time_window", windowSeconds: 1.5 } }],
    ["unknown freshness kind", { freshnessPolicyJson: { kind: "forever" } }],
    ["rule without value", { rule: { path: "a", op: "gt" } }],
    ["category change", { category: "collector" }],
  ];
  for (const [name, body] of invalid) {
    await t.step(`PATCH with ${name} is 400`, async () => {
      const res = await ctx.call("PATCH", `${controls}/${sbom.id}`, {
        token: ws.token,
        json: body,
      });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error.code, "validation_failed");
    });
  }

  await t.step("policies and names change; disabled controls leave the evaluations", async () => {
    const res = await ctx.call("PATCH", `${controls}/${sbom.id}`, {
      token: ws.token,
      json: {
        publicName: "SBOM",
        freshnessPolicyJson: { kind: "none" },
        degradationPolicyJson: { staleAfterSeconds: null, degradedAfterSeconds: 60 },
      },
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).control.publicName, "SBOM");
    const off = await ctx.call("PATCH", `${controls}/${sbom.id}`, {
      token: ws.token,
      json: { enabled: false },
    });
    assert.equal(off.status, 200);
    await off.body?.cancel();
    const { evaluations } =
      await (await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
        token: ws.token,
      })).json();
    assert.ok(
      !evaluations.some((e: { control: { key: string } }) => e.control.key === "evidence.sbom"),
    );
    assert.equal(evaluations.length, 7);
  });

  await t.step("an unknown control is 404; another organization gets 403", async () => {
    const res = await ctx.call("PATCH", `${controls}/${crypto.randomUUID()}`, {
      token: ws.token,
      json: { enabled: true },
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
    const bob = await workspace(ctx, "bob");
    const foreign = await ctx.call("PATCH", `${controls}/${sbom.id}`, {
      token: bob.token,
      json: { enabled: true },
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
  });
});

Deno.test("[http] /docs/evaluation is generated from the registry, in Markdown and HTML", async () => {
  await using ctx = await createTestApp();
  const md = await ctx.call("GET", "/docs/evaluation.md");
  assert.equal(md.status, 200);
  assert.match(md.headers.get("content-type") ?? "", /text\/markdown/);
  const text = await md.text();
  for (
    const probe of ["isSbomDocument", "hasNoFindingAbove", "hasSlsaProvenance", "didPoliciesPass"]
  ) {
    assert.ok(text.includes(probe), probe);
  }
  const page = await ctx.call("GET", "/docs/evaluation");
  assert.match(page.headers.get("content-type") ?? "", /text\/html/);
  assert.match(page.headers.get("content-security-policy") ?? "", /default-src 'none'/);
  const body = await page.text();
  assert.match(body, /<h1 id="evaluation-rules">Evaluation rules<\/h1>/);
  assert.match(body, /<table>/);
  const negotiated = await ctx.call("GET", "/docs/evaluation", {
    headers: { accept: "text/markdown" },
  });
  assert.equal(await negotiated.text(), text);
  assert.equal(negotiated.headers.get("vary"), "Accept, Accept-Encoding");
});

Deno.test("[http] custom controls created together list, evaluate and publish in code-point key order", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { visibility: "public" });
  const path = `/projects/${ws.project.id}/controls`;
  // The clock stands still: all three are created at the same instant.
  for (const key of ["custom.a_b", "custom.a.b", "custom.a-b"]) {
    const res = await ctx.call("POST", path, {
      token: ws.token,
      json: { key, publicName: key, evidenceType: "sbom" },
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
  }
  const expected = ["custom.a-b", "custom.a.b", "custom.a_b"];
  const custom = (keys: string[]) => keys.filter((k) => k.startsWith("custom."));
  const listed = (await (await ctx.call("GET", path, { token: ws.token })).json()).controls;
  assert.deepEqual(custom(listed.map((c: { key: string }) => c.key)), expected);
  const recomputed = await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, {
    token: ws.token,
  });
  const { evaluations } = await recomputed.json();
  assert.deepEqual(
    custom(evaluations.map((e: { control: { key: string } }) => e.control.key)),
    expected,
  );
  const published = await ctx.call("POST", `/projects/${ws.project.id}/publish`, {
    token: ws.token,
  });
  assert.equal(published.status, 201);
  await published.body?.cancel();
  const profile = await (await ctx.call("GET", `/trust/${ws.project.slug}/trust.json`)).json();
  assert.deepEqual(custom(profile.controls.map((c: { key: string }) => c.key)), expected);
});
