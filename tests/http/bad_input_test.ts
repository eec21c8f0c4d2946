import assert from "node:assert/strict";
import { createTestApp, snapshotKv } from "../support/app.ts";

const MiB = 1024 * 1024;

function nested(depth: number): unknown {
  let value: unknown = "x";
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Bodies that must be refused by every JSON endpoint, each with its expected status. */
function malformedBodies(valid: Record<string, unknown>, stringField: string) {
  return [
    { name: "invalid JSON", body: "{", type: "application/json", status: 400 },
    { name: "JSON array", body: "[]", type: "application/json", status: 400 },
    { name: "JSON null", body: "null", type: "application/json", status: 400 },
    { name: "empty body", body: "", type: "application/json", status: 400 },
    { name: "missing fields", json: {}, status: 400 },
    { name: "wrong type", json: { ...valid, [stringField]: 42 }, status: 400 },
    { name: "unknown field", json: { ...valid, surprise: true }, status: 400 },
    { name: "1 MiB string", json: { ...valid, [stringField]: "a".repeat(MiB) }, status: 413 },
    { name: "deep nesting", json: { ...valid, [stringField]: nested(5000) }, status: 400 },
    {
      name: "huge number",
      body: `{"${stringField}": 1e400}`,
      type: "application/json",
      status: 400,
    },
    { name: "text/plain", body: JSON.stringify(valid), type: "text/plain", status: 415 },
    {
      name: "form encoded",
      body: "a=1",
      type: "application/x-www-form-urlencoded",
      status: 415,
    },
  ];
}

Deno.test("[http] bad input on every workspace endpoint is a 4xx envelope and writes nothing", async (t) => {
  await using ctx = await createTestApp();
  const token = await ctx.tokenFor("owner");
  const { organization, project } = await (await ctx.call("POST", "/onboarding/bootstrap", {
    token,
    json: { workspaceName: "Acme", projectName: "API" },
  })).json();
  const other = await ctx.tokenFor("other");
  await ctx.call("GET", "/me", { token: other });

  const endpoints = [
    {
      method: "POST",
      path: "/onboarding/bootstrap",
      token: other,
      valid: { workspaceName: "W", projectName: "P" },
      field: "workspaceName",
    },
    { method: "POST", path: "/organizations", token, valid: { name: "Org" }, field: "name" },
    {
      method: "POST",
      path: "/projects",
      token,
      valid: { organizationId: organization.id, name: "P2" },
      field: "name",
    },
    {
      method: "PATCH",
      path: `/projects/${project.id}`,
      token,
      valid: { name: "N" },
      field: "name",
    },
    {
      method: "POST",
      path: `/organizations/${organization.id}/invitations`,
      token,
      valid: { email: "a@b.test", role: "member" },
      field: "email",
    },
  ];

  for (const endpoint of endpoints) {
    for (const c of malformedBodies(endpoint.valid, endpoint.field)) {
      if (endpoint.method === "PATCH" && c.name === "missing fields") continue;
      await t.step(
        `${endpoint.method} ${endpoint.path.replace(/[0-9a-f-]{36}/g, ":id")}: ${c.name}`,
        async () => {
          const before = await snapshotKv(ctx.kv);
          const res = await ctx.call(endpoint.method, endpoint.path, {
            token: endpoint.token,
            ...(c.json !== undefined
              ? { json: c.json }
              : { body: c.body, headers: { "content-type": c.type! } }),
          });
          assert.equal(res.status, c.status, await res.clone().text());
          assert.match(res.headers.get("content-type") ?? "", /application\/json/);
          const { error } = await res.json();
          assert.equal(typeof error.code, "string");
          assert.equal(typeof error.message, "string");
          assert.ok(error.message.length < 500, "the message does not echo the input");
          assert.equal(await snapshotKv(ctx.kv), before);
        },
      );
    }
  }

  const idRoutes = [
    ["GET", "/organizations/not-a-uuid"],
    ["GET", "/organizations/not-a-uuid/projects"],
    ["GET", "/organizations/not-a-uuid/members"],
    ["GET", "/projects/123"],
    ["PATCH", "/projects/123"],
    ["GET", "/projects/123/controls"],
    ["DELETE", `/organizations/${organization.id}/members/nope`],
  ];
  for (const [method, path] of idRoutes) {
    await t.step(`${method} ${path}: invalid UUID is a 400`, async () => {
      const res = await ctx.call(method, path, {
        token,
        json: method === "PATCH" ? {} : undefined,
      });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error.code, "validation_failed");
    });
  }

  await t.step("an empty PATCH changes nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const res = await ctx.call("PATCH", `/projects/${project.id}`, { token, json: {} });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).project.updatedAt, project.updatedAt);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("unknown routes and wrong methods answer the envelope", async () => {
    const missing = await ctx.call("GET", "/no/such/route");
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, "not_found");
    const wrong = await ctx.call("PUT", "/me", { token });
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "DELETE, GET, HEAD");
    assert.equal((await wrong.json()).error.code, "method_not_allowed");
  });

  await t.step("an oversized body is refused from Content-Length before reading", async () => {
    const res = await ctx.call("POST", "/organizations", {
      token,
      body: "x".repeat(300 * 1024),
      headers: { "content-type": "application/json" },
    });
    assert.equal(res.status, 413);
    assert.equal((await res.json()).error.code, "payload_too_large");
  });
});
