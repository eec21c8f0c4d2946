import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { collector, workspace } from "../support/fixtures.ts";

Deno.test("[http] setup guide: members read it (private projects too)", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme" });
  const path = `/projects/${ws.project.id}/setup.md`;
  const guide = async (token = ws.token) => {
    const res = await ctx.call("GET", path, { token });
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      cache: res.headers.get("cache-control"),
      text: await res.text(),
    };
  };

  const before = await guide();
  assert.equal(before.status, 200);
  assert.equal(before.type, "text/markdown; charset=utf-8");
  assert.equal(before.cache, "private, no-cache");
  assert.ok(before.text.includes(`TRUST_PROJECT_ID=${ws.project.id}`));
  assert.ok(
    before.text.includes("TRUST_COLLECTOR_ID=<COLLECTOR_ID>"),
    "a placeholder until one exists",
  );

  const first = await collector(ctx, ws, { name: "first" });
  const second = await collector(ctx, ws, { name: "second" });
  const revoked = await ctx.call(
    "POST",
    `/projects/${ws.project.id}/collectors/${second.id}/revoke`,
    { token: ws.token },
  );
  assert.equal(revoked.status, 200);
  await revoked.body?.cancel();
  const after = await guide();
  assert.ok(after.text.includes(`TRUST_COLLECTOR_ID=${first.id}`), "the active collector");
  assert.ok(!after.text.includes(second.id), "never the revoked one");
  for (const secret of [first.secret, second.secret]) assert.ok(!after.text.includes(secret));

  const stranger = await ctx.tokenFor("mallory");
  assert.equal((await guide(stranger)).status, 403);
  const anonymous = await ctx.call("GET", path);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});

Deno.test("[http] setup guide: GET /trust/{projectSlug}/setup.md serves a public project's guide", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const get = async (slug = "acme") => {
    const res = await ctx.call("GET", `/trust/${slug}/setup.md`);
    return { status: res.status, headers: res.headers, text: await res.text() };
  };

  await t.step(
    "before any collector: the project id and a placeholder saying what to do",
    async () => {
      const res = await get();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/markdown; charset=utf-8");
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.ok(res.text.includes(`Project id: \`${ws.project.id}\``));
      assert.ok(res.text.includes(`TRUST_PROJECT_ID=${ws.project.id}`));
      assert.ok(res.text.includes("TRUST_COLLECTOR_ID=<COLLECTOR_ID>"));
      assert.match(res.text, /no active collector yet: create one in the dashboard/);
    },
  );

  const older = await collector(ctx, ws, { name: "older" });
  ctx.clock.advance(1000);
  const newer = await collector(ctx, ws, { name: "newer" });
  await t.step("the most recently created active collector, never a secret", async () => {
    const res = await get();
    assert.equal(res.status, 200);
    assert.ok(res.text.includes(`Collector id: \`${newer.id}\``));
    assert.ok(res.text.includes(`TRUST_COLLECTOR_ID=${newer.id}`));
    assert.ok(res.text.includes(`/collectors/${newer.id}/heartbeat`));
    assert.ok(!res.text.includes(older.id));
    for (const secret of [older.secret, newer.secret]) assert.ok(!res.text.includes(secret));
    assert.doesNotMatch(res.text, /tpc_[A-Za-z0-9]/, "no secret of any collector");
    const members = await (await ctx.call("GET", `/projects/${ws.project.id}/setup.md`, {
      token: ws.token,
    })).text();
    assert.equal(res.text, members, "the same guide members read");
  });

  await t.step("a revoked newest collector gives way to the next active one", async () => {
    const revoked = await ctx.call(
      "POST",
      `/projects/${ws.project.id}/collectors/${newer.id}/revoke`,
      { token: ws.token },
    );
    await revoked.body?.cancel();
    const res = await get();
    assert.ok(res.text.includes(`TRUST_COLLECTOR_ID=${older.id}`));
    assert.ok(!res.text.includes(newer.id));
  });

  await t.step("a private or unknown project answers the public reads' 404", async () => {
    const hidden = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
      token: ws.token,
      json: { visibility: "private" },
    });
    await hidden.body?.cancel();
    for (const slug of ["acme", "nobody"]) {
      const res = await get(slug);
      assert.equal(res.status, 404, slug);
      assert.equal(JSON.parse(res.text).error.code, "not_found");
      assert.ok(!res.text.includes(ws.project.id) && !res.text.includes(older.id), "no id leaks");
    }
  });

  await t.step("listed in /openapi.json", async () => {
    const doc = await (await ctx.call("GET", "/openapi.json")).json();
    const operation = doc.paths["/trust/{projectSlug}/setup.md"]?.get;
    assert.equal(operation?.operationId, "getTrustSetupGuide");
    assert.deepEqual(operation.security, []);
    assert.ok(operation.responses["200"].content["text/markdown"]);
    assert.ok(operation.responses["404"]);
  });
});

Deno.test("[http] setup guide as blocks: the same guide, its text never markup, members only", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme" });
  const renamed = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { name: "<b>Acme</b> *Cloud*" },
  });
  assert.equal(renamed.status, 200);
  await renamed.body?.cancel();
  const made = await collector(ctx, ws, { name: "ci" });
  const res = await ctx.call("GET", `/projects/${ws.project.id}/setup.json`, { token: ws.token });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(res.headers.get("cache-control"), "private, no-cache");
  const { markdown, blocks } = await res.json();
  const md = await ctx.call("GET", `/projects/${ws.project.id}/setup.md`, { token: ws.token });
  assert.equal(markdown, await md.text());
  assert.deepEqual(blocks[0], {
    type: "heading",
    level: 1,
    content: [{ type: "text", text: "Set up evidence collection for <b>Acme</b> *Cloud*" }],
  });
  const code = blocks.filter((b: { type: string }) => b.type === "code");
  assert.deepEqual(code.map((b: { language: string }) => b.language), [
    "sh",
    "sh",
    "sh",
    "yaml",
    "yaml",
  ]);
  assert.ok(code[0].text.includes(`export TRUST_COLLECTOR_ID=${made.id}`));
  assert.ok(!JSON.stringify(blocks).includes(made.secret));
  type Part = { type: string; href?: string };
  const parts = blocks.flatMap((b: { content?: Part[]; items?: Part[][] }) => [
    ...(b.content ?? []),
    ...(b.items ?? []).flat(),
  ]);
  const links = parts.filter((p: Part) => p.type === "link");
  assert.ok(links.some((l: Part) => l.href === "http://trust.test/trust/acme"), "linked");

  const stranger = await ctx.tokenFor("mallory");
  const refused = await ctx.call("GET", `/projects/${ws.project.id}/setup.json`, {
    token: stranger,
  });
  assert.equal(refused.status, 403);
  await refused.body?.cancel();
});
