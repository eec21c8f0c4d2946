import assert from "node:assert/strict";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";

Deno.test("[http] collector API authorization matrix: 401/403 and nothing written", async (t) => {
  await using ctx = await createTestApp();
  const a = await workspace(ctx, "alice");
  const b = await workspace(ctx, "bob");
  const main = await collector(ctx, a, { name: "main" });
  const heartbeatOnly = await collector(ctx, a, { name: "hb", allowedActions: ["heartbeat"] });
  const foreign = await collector(ctx, b, { name: "foreign" });
  const revoked = await collector(ctx, a, { name: "revoked" });
  await ctx.call("POST", `/projects/${a.project.id}/collectors/${revoked.id}/revoke`, {
    token: a.token,
  });
  const rotated = await collector(ctx, a, { name: "rotated" });
  await ctx.call("POST", `/projects/${a.project.id}/collectors/${rotated.id}/rotate`, {
    token: a.token,
  });
  const unknown = `tpc_${"A".repeat(43)}`;

  const signals = {
    detectedAt: ctx.clock.now().toISOString(),
    commitSha: "0123abc",
    ciCd: { detected: true, tools: ["github-actions"] },
    monitoring: { detected: false },
    authProvider: { detected: false },
    cloudProvider: { detected: true, providers: ["aws"] },
    securityContact: { detected: true, email: "security@acme.test" },
  };
  const routes = (collectorId: string) => [
    {
      path: `/collectors/${collectorId}/heartbeat`,
      json: { sourceRef: "ci" },
      action: "heartbeat",
    },
    {
      path: "/ingest/evidence",
      json: { projectId: a.project.id, ...evidenceItem(ctx, sbomPayload(1)) },
      action: "ingest:evidence",
    },
    {
      path: "/ingest/evidence/batch",
      json: { projectId: a.project.id, records: [evidenceItem(ctx, sbomPayload(2))] },
      action: "ingest:evidence",
    },
    {
      path: "/ingest/signals",
      json: { projectId: a.project.id, detection: signals },
      action: "ingest:signals",
    },
  ];

  const cases: Array<{ name: string; auth?: string; collectorId: string; status: number }> = [
    { name: "no token", collectorId: main.id, status: 401 },
    { name: "unknown secret", auth: `Bearer ${unknown}`, collectorId: main.id, status: 401 },
    {
      name: "revoked collector",
      auth: `Bearer ${revoked.secret}`,
      collectorId: revoked.id,
      status: 401,
    },
    {
      name: "rotated-away secret",
      auth: `Bearer ${rotated.secret}`,
      collectorId: rotated.id,
      status: 401,
    },
    { name: "human JWT", auth: `Bearer ${a.token}`, collectorId: main.id, status: 401 },
    {
      name: "collector of another project",
      auth: `Bearer ${foreign.secret}`,
      collectorId: main.id,
      status: 403,
    },
  ];

  for (const c of cases) {
    for (const route of routes(c.collectorId)) {
      await t.step(
        `${c.name}: POST ${route.path.replace(/[0-9a-f-]{36}/, ":id")} → ${c.status}`,
        async () => {
          const before = await snapshotKv(ctx.kv);
          const res = await ctx.call("POST", route.path, {
            json: route.json,
            headers: c.auth ? { authorization: c.auth } : {},
          });
          assert.equal(res.status, c.status, await res.clone().text());
          const { error } = await res.json();
          assert.equal(error.code, c.status === 401 ? "unauthorized" : "forbidden");
          if (c.status === 401) assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer/);
          assert.equal(await snapshotKv(ctx.kv), before);
        },
      );
    }
  }

  for (const route of routes(heartbeatOnly.id).filter((r) => r.action !== "heartbeat")) {
    await t.step(`action not in allowedActions: POST ${route.path} → 403`, async () => {
      const before = await snapshotKv(ctx.kv);
      const res = await ctx.call("POST", route.path, {
        json: route.json,
        headers: { authorization: `Bearer ${heartbeatOnly.secret}` },
      });
      assert.equal(res.status, 403);
      assert.match((await res.json()).error.message, /not allowed/);
      assert.equal(await snapshotKv(ctx.kv), before);
    });
  }

  await t.step("a collector cannot send another collector's heartbeat", async () => {
    const res = await ctx.call("POST", `/collectors/${heartbeatOnly.id}/heartbeat`, {
      json: { sourceRef: "ci" },
      headers: { authorization: `Bearer ${main.secret}` },
    });
    assert.equal(res.status, 403);
    await res.body?.cancel();
  });

  await t.step("a collector secret on a human route is 401", async () => {
    const before = await snapshotKv(ctx.kv);
    for (
      const path of ["/me", `/projects/${a.project.id}`, `/projects/${a.project.id}/collectors`]
    ) {
      const res = await ctx.call("GET", path, {
        headers: { authorization: `Bearer ${main.secret}` },
      });
      assert.equal(res.status, 401, path);
      await res.body?.cancel();
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("the right collector succeeds on every route", async () => {
    for (const route of routes(main.id)) {
      const res = await ctx.call("POST", route.path, {
        json: route.json,
        headers: { authorization: `Bearer ${main.secret}` },
      });
      assert.ok(res.status === 200 || res.status === 201, `${route.path}: ${res.status}`);
      await res.body?.cancel();
    }
  });

  await t.step("secrets never appear in logs or later responses", async () => {
    const list = await (await ctx.call("GET", `/projects/${a.project.id}/collectors`, {
      token: a.token,
    })).text();
    for (const secret of [main.secret, heartbeatOnly.secret, rotated.secret]) {
      assert.ok(!list.includes(secret));
      assert.ok(!ctx.log.lines.join("\n").includes(secret));
    }
    assert.ok(list.includes(main.secret.slice(0, 12)) === false, "not even the prefix is listed");
  });
});

Deno.test("[http] collectors: create, list, rotate, revoke, client_credentials", async (t) => {
  await using ctx = await createTestApp();
  const a = await workspace(ctx, "alice");
  const base = `/projects/${a.project.id}/collectors`;

  let created = { id: "", secret: "" };
  await t.step("create shows the secret once with its prefix", async () => {
    const res = await ctx.call("POST", base, { token: a.token, json: { name: "github" } });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const body = await res.json();
    assert.match(body.secret.value, /^tpc_[A-Za-z0-9_-]{43}$/);
    assert.equal(body.secret.prefix, body.secret.value.slice(0, 12));
    assert.deepEqual(body.collector.allowedActions, [
      "heartbeat",
      "ingest:evidence",
      "ingest:signals",
    ]);
    assert.equal(body.collector.status, "active");
    assert.equal(body.collector.lastSeenAt, null);
    assert.equal(body.collector.type, "cli");
    created = { id: body.collector.id, secret: body.secret.value };
  });

  await t.step("heartbeat sets lastSeenAt", async () => {
    const res = await ctx.call("POST", `/collectors/${created.id}/heartbeat`, {
      json: { sourceRef: "runner-1" },
      headers: { authorization: `Bearer ${created.secret}` },
    });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).collector.lastSeenAt, ctx.clock.now().toISOString());
    const list = await (await ctx.call("GET", base, { token: a.token })).json();
    assert.equal(list.collectors[0].lastSeenAt, ctx.clock.now().toISOString());
  });

  await t.step(
    "client_credentials gives a collector token accepted where the secret is",
    async () => {
      const res = await ctx.call("POST", "/oauth2/token", {
        body: new URLSearchParams({ grant_type: "client_credentials", scope: "heartbeat" }),
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${btoa(`${created.id}:${created.secret}`)}`,
        },
      });
      assert.equal(res.status, 200);
      const { access_token, expires_in, scope } = await res.json();
      assert.equal(expires_in, 900);
      assert.equal(scope, "heartbeat");
      const hb = await ctx.call("POST", `/collectors/${created.id}/heartbeat`, {
        json: { sourceRef: "runner-1" },
        headers: { authorization: `Bearer ${access_token}` },
      });
      assert.equal(hb.status, 200);
      await hb.body?.cancel();
      const human = await ctx.call("GET", "/me", { token: access_token });
      assert.equal(human.status, 401, "a collector token is not a human token");
      await human.body?.cancel();
      const beyond = await ctx.call("POST", "/ingest/signals", {
        json: { projectId: a.project.id, detection: {} },
        headers: { authorization: `Bearer ${access_token}` },
      });
      assert.equal(beyond.status, 403, "a token acts only within the scope it was granted");
      await beyond.body?.cancel();
      const wrong = await ctx.call("POST", "/oauth2/token", {
        body: new URLSearchParams({
          grant_type: "client_credentials",
          client_id: created.id,
          client_secret: `tpc_${"B".repeat(43)}`,
        }),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      assert.equal(wrong.status, 401);
      assert.equal((await wrong.json()).error, "invalid_client");
    },
  );

  await t.step("rotate kills the old secret and every token minted from it at once", async () => {
    const minted = await ctx.call("POST", "/oauth2/token", {
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: created.id,
        client_secret: created.secret,
      }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(minted.status, 200);
    const { access_token } = await minted.json();
    const res = await ctx.call("POST", `${base}/${created.id}/rotate`, { token: a.token });
    assert.equal(res.status, 200);
    const { secret } = await res.json();
    const old = await ctx.call("POST", `/collectors/${created.id}/heartbeat`, {
      json: { sourceRef: "x" },
      headers: { authorization: `Bearer ${created.secret}` },
    });
    assert.equal(old.status, 401);
    await old.body?.cancel();
    const oldToken = await ctx.call("POST", `/collectors/${created.id}/heartbeat`, {
      json: { sourceRef: "x" },
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(oldToken.status, 401, "a token of the rotated secret is dead too");
    assert.match((await oldToken.json()).error.message, /rotated/);
    const fresh = await ctx.call("POST", `/collectors/${created.id}/heartbeat`, {
      json: { sourceRef: "x" },
      headers: { authorization: `Bearer ${secret.value}` },
    });
    assert.equal(fresh.status, 200);
    await fresh.body?.cancel();
    created.secret = secret.value;
  });

  await t.step("revoke answers 401 to every credential of the collector", async () => {
    const res = await ctx.call("POST", `${base}/${created.id}/revoke`, { token: a.token });
    assert.equal(res.status, 200);
    const { collector } = await res.json();
    assert.equal(collector.status, "revoked");
    assert.equal(collector.revokedAt, ctx.clock.now().toISOString());
    const hb = await ctx.call("POST", `/collectors/${created.id}/heartbeat`, {
      json: { sourceRef: "x" },
      headers: { authorization: `Bearer ${created.secret}` },
    });
    assert.equal(hb.status, 401);
    await hb.body?.cancel();
    const rotate = await ctx.call("POST", `${base}/${created.id}/rotate`, { token: a.token });
    assert.equal(rotate.status, 409);
    await rotate.body?.cancel();
  });

  await t.step("another organization's member gets 403; an unknown collector 404", async () => {
    const b = await workspace(ctx, "bob");
    const res = await ctx.call("GET", base, { token: b.token });
    assert.equal(res.status, 403);
    await res.body?.cancel();
    const missing = await ctx.call("POST", `${base}/${crypto.randomUUID()}/revoke`, {
      token: a.token,
    });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });
});
