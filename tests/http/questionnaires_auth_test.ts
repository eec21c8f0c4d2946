/**
 * Who may call the questionnaire routes: anonymous callers get 401 and non-members 403 on
 * every one (the handler changes nothing), members list and read, and the two routes that
 * change what the organization publishes or shares (save-answer, share) are for owners.
 */
import assert from "node:assert/strict";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { team } from "../support/fixtures.ts";

const Q = "0193a3c4-0000-7000-8000-000000000001";

/** Every questionnaire route, with a body it would accept. */
function routes(orgId: string) {
  const base = `/organizations/${orgId}/questionnaires`;
  return [
    { method: "POST", path: `${base}?name=Q`, body: "Question,Answer\nDo you?,\n", csv: true },
    { method: "GET", path: base },
    { method: "GET", path: `${base}/${Q}` },
    { method: "PATCH", path: `${base}/${Q}`, json: { name: "Renamed" } },
    { method: "DELETE", path: `${base}/${Q}` },
    { method: "GET", path: `${base}/${Q}/rows?status=pending` },
    { method: "PATCH", path: `${base}/${Q}/rows/0:2`, json: { state: "rejected" } },
    { method: "POST", path: `${base}/${Q}/accept-id-matches` },
    { method: "POST", path: `${base}/${Q}/accept-rows`, json: { minScore: 0.5 } },
    {
      method: "POST",
      path: `${base}/${Q}/rows/0:2/save-answer`,
      json: { category: "Security", visibility: "public" },
      owner: true,
    },
    { method: "GET", path: `${base}/${Q}/gaps` },
    { method: "GET", path: `${base}/${Q}/export` },
    { method: "GET", path: `${base}/${Q}/manifest` },
    { method: "POST", path: `${base}/${Q}/share`, owner: true },
  ];
}

type Route = ReturnType<typeof routes>[number];

function options(route: Route, token?: string) {
  return {
    token,
    json: route.json,
    body: route.body,
    headers: route.csv ? { "content-type": "text/csv" } : undefined,
  };
}

Deno.test("[questionnaires] the authorization matrix of every route", async (t) => {
  await using ctx = await createTestApp();
  const acme = await team(ctx);
  const all = routes(acme.orgId);

  await t.step("anonymous: 401 on every route, nothing changed", async () => {
    const before = await snapshotKv(ctx.kv);
    for (const route of all) {
      const res = await ctx.call(route.method, route.path, options(route));
      assert.equal(res.status, 401, `${route.method} ${route.path}`);
      assert.equal((await res.json()).error.code, "unauthorized");
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("a non-member: 403 on every route, nothing changed", async () => {
    const before = await snapshotKv(ctx.kv);
    for (const route of all) {
      const res = await ctx.call(route.method, route.path, options(route, acme.stranger));
      assert.equal(res.status, 403, `${route.method} ${route.path}`);
      assert.equal((await res.json()).error.code, "forbidden");
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("a member: owners' routes 403, the others reach the questionnaire", async () => {
    for (const route of all.filter((r) => !r.csv)) {
      const res = await ctx.call(route.method, route.path, options(route, acme.member));
      const expected = route.owner ? 403 : route.path.endsWith("questionnaires") ? 200 : 404;
      assert.equal(res.status, expected, `${route.method} ${route.path}: ${await res.text()}`);
    }
  });

  await t.step("an owner: every route reaches the questionnaire (unknown here: 404)", async () => {
    for (const route of all.filter((r) => !r.csv)) {
      const res = await ctx.call(route.method, route.path, options(route, acme.owner));
      const expected = route.path.endsWith("questionnaires") ? 200 : 404;
      assert.equal(res.status, expected, `${route.method} ${route.path}: ${await res.text()}`);
    }
  });

  await t.step("the list is empty and paged", async () => {
    const res = await ctx.call("GET", `/organizations/${acme.orgId}/questionnaires?limit=5`, {
      token: acme.member,
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { questionnaires: [], nextCursor: null });
  });
});
