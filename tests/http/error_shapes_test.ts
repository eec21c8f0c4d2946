import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";

const HUGE = "a=" + "x".repeat(300 * 1024);

Deno.test("[http] /oauth2/token and /oauth2/revoke answer malformed requests in the RFC 6749 shape", async (t) => {
  await using ctx = await createTestApp();
  const cases = [
    { name: "JSON body", type: "application/json", body: '{"grant_type":"refresh_token"}' },
    { name: "broken JSON", type: "application/json", body: "{" },
    { name: "plain text", type: "text/plain", body: "grant_type=refresh_token" },
    { name: "broken multipart", type: "multipart/form-data; boundary=x", body: "grant_type=x" },
    { name: "no grant_type", type: "application/x-www-form-urlencoded", body: "code=x" },
    { name: "huge body", type: "application/x-www-form-urlencoded", body: HUGE },
  ];
  for (const path of ["/oauth2/token", "/oauth2/revoke"]) {
    for (const c of cases) {
      await t.step(`${path}: ${c.name}`, async () => {
        const res = await ctx.call("POST", path, {
          body: c.body,
          headers: { "content-type": c.type },
        });
        assert.ok([400, 413, 415].includes(res.status), `status ${res.status}`);
        assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
        assert.equal(res.headers.get("cache-control"), "no-store");
        const body = await res.json();
        assert.equal(body.error, "invalid_request", JSON.stringify(body));
        assert.equal(typeof body.error_description, "string");
      });
    }
  }
});

Deno.test("[http] the sign-in and sign-up forms answer bad requests with a page", async (t) => {
  await using ctx = await createTestApp({ env: { SIGNUP: "open" } });
  const cases = [
    { method: "GET", path: `/signup?invitation=${"x".repeat(200)}`, status: 400 },
    { method: "GET", path: `/oauth2/authorize?client_id=${"x".repeat(300)}`, status: 400 },
    { method: "POST", path: "/signup", type: "application/json", body: "{", status: 400 },
    { method: "POST", path: "/signup", type: "text/plain", body: "email=a", status: 415 },
    {
      method: "POST",
      path: "/signup",
      type: "application/x-www-form-urlencoded",
      body: HUGE,
      status: 413,
    },
    {
      method: "POST",
      path: "/signup",
      type: "application/x-www-form-urlencoded",
      body: `csrf=x&email=a&name=${"n".repeat(300)}&password=p`,
      status: 400,
    },
    {
      method: "POST",
      path: "/oauth2/authorize",
      type: "application/json",
      body: "{}",
      status: 415,
    },
    { method: "POST", path: "/oauth2/authorize", type: "text/plain", body: HUGE, status: 413 },
  ];
  for (const c of cases) {
    await t.step(`${c.method} ${c.path.slice(0, 40)} ${c.type ?? ""}`, async () => {
      const headers: Record<string, string> = c.type ? { "content-type": c.type } : {};
      const res = await ctx.call(c.method, c.path, { body: c.body, headers });
      assert.equal(res.status, c.status);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      assert.match(await res.text(), /<p class="error"/);
    });
  }
});
