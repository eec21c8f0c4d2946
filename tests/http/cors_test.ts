import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";

const ORIGIN = "https://app.elsewhere.example";

function preflight(method: string, requestHeaders: string) {
  return {
    origin: ORIGIN,
    "access-control-request-method": method,
    "access-control-request-headers": requestHeaders,
  };
}

async function publishedWorkspace() {
  const ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const patched = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { hostedSubdomain: "acme" },
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();
  const published = await ctx.call("POST", `/projects/${ws.project.id}/publish`, {
    token: ws.token,
  });
  assert.equal(published.status, 201);
  await published.body?.cancel();
  return { ctx, ws };
}

Deno.test("[http] CORS: public reads answer preflights and carry Access-Control-Allow-Origin: *", async (t) => {
  const { ctx, ws } = await publishedWorkspace();
  await using _ = ctx;

  await t.step("a preflight for a conditional GET of trust.json is allowed", async () => {
    const res = await ctx.call("OPTIONS", "/trust/acme/trust.json", {
      headers: preflight("GET", "if-none-match"),
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /\bGET\b/);
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /If-None-Match/i);
    assert.ok(Number(res.headers.get("access-control-max-age")) > 0);
  });

  await t.step("trust.json, cold (router) and warm (fast path), 200 and 304", async () => {
    let etag = "";
    for (let i = 0; i < 3; i++) {
      const res = await ctx.call("GET", "/trust/acme/trust.json", { headers: { origin: ORIGIN } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("access-control-expose-headers") ?? "", /\bETag\b/);
      etag = res.headers.get("etag")!;
      await res.body?.cancel();
    }
    const again = await ctx.call("GET", "/trust/acme/trust.json", {
      headers: { origin: ORIGIN, "if-none-match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("access-control-allow-origin"), "*");
    await again.body?.cancel();
  });

  await t.step("the other public reads, errors included", async () => {
    const paths = [
      "/trust/acme",
      "/trust/acme/badge.svg",
      "/trust/nobody/trust.json",
      `/public/trust/${ws.organization.slug}`,
      "/.well-known/jwks.json",
      "/.well-known/api-catalog",
      "/openapi.json",
      "/llms.txt",
      "/docs/evaluation.md",
    ];
    for (const path of paths) {
      const res = await ctx.call("GET", path, { headers: { origin: ORIGIN } });
      assert.ok(res.status < 500, path);
      assert.equal(res.headers.get("access-control-allow-origin"), "*", path);
      await res.body?.cancel();
      const pre = await ctx.call("OPTIONS", path, { headers: preflight("GET", "accept") });
      assert.equal(pre.status, 204, path);
      await pre.body?.cancel();
    }
  });

  await t.step("MCP: POST with its headers is allowed", async () => {
    const res = await ctx.call("OPTIONS", "/mcp", {
      headers: preflight("POST", "content-type, mcp-protocol-version"),
    });
    assert.equal(res.status, 204);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /\bPOST\b/);
    const allowed = res.headers.get("access-control-allow-headers") ?? "";
    for (const name of ["Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version"]) {
      assert.match(allowed, new RegExp(name, "i"));
    }
  });

  await t.step("a hosted subdomain's trust page is readable from other origins", async () => {
    const headers = { origin: ORIGIN, host: "acme.trust.test" };
    const res = await ctx.call("GET", "/trust.json", { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    await res.body?.cancel();
    const pre = await ctx.call("OPTIONS", "/trust.json", {
      headers: { ...preflight("GET", "if-none-match"), host: "acme.trust.test" },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  });
});

Deno.test("[http] CORS: the operator API, OAuth and sign-up stay closed to other origins", async () => {
  const { ctx, ws } = await publishedWorkspace();
  await using _ = ctx;
  const paths = [
    `/projects/${ws.project.id}`,
    "/me",
    "/projects",
    "/ingest/evidence",
    "/oauth2/token",
    "/signup",
    "/dashboard/config.json",
  ];
  for (const path of paths) {
    const pre = await ctx.call("OPTIONS", path, {
      headers: preflight("POST", "authorization, content-type"),
    });
    assert.ok(pre.status === 404 || pre.status === 405, `${path}: ${pre.status}`);
    assert.equal(pre.headers.get("access-control-allow-origin"), null, path);
    await pre.body?.cancel();
  }
  const me = await ctx.call("GET", "/me", { token: ws.token, headers: { origin: ORIGIN } });
  assert.equal(me.status, 200);
  assert.equal(me.headers.get("access-control-allow-origin"), null);
  await me.body?.cancel();
});
