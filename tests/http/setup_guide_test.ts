import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { collector, workspace } from "../support/fixtures.ts";

Deno.test("[http] setup guide: members read it (private projects too); there is no public copy", async () => {
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
    `/projects/${ws.project.id}/collectors/${first.id}/revoke`,
    { token: ws.token },
  );
  assert.equal(revoked.status, 200);
  await revoked.body?.cancel();
  const after = await guide();
  assert.ok(after.text.includes(`TRUST_COLLECTOR_ID=${second.id}`), "the active collector");
  assert.ok(!after.text.includes(first.id), "never the revoked one");
  for (const secret of [first.secret, second.secret]) assert.ok(!after.text.includes(secret));

  const made = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { visibility: "public" },
  });
  await made.body?.cancel();
  (await ctx.call("POST", `/projects/${ws.project.id}/publish`, { token: ws.token })).body
    ?.cancel();
  const page = await ctx.call("GET", "/trust/acme");
  assert.equal(page.status, 200, "the project is public and published");
  await page.body?.cancel();
  const publicCopy = await ctx.call("GET", "/trust/acme/setup.md");
  assert.equal(publicCopy.status, 404, "no public copy, even of a public project's guide");
  const body = await publicCopy.text();
  assert.ok(!body.includes(ws.project.id) && !body.includes(second.id), "no id leaks");
  assert.equal((await guide()).text, after.text, "members still read it");

  const stranger = await ctx.tokenFor("mallory");
  assert.equal((await guide(stranger)).status, 403);
  const anonymous = await ctx.call("GET", path);
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
});
