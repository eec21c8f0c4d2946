/**
 * The service's icon: GET /favicon.ico answers an ICO (a 32 px PNG inside) with a long cache
 * and an ETag, on the service's host and on a project's hosted subdomain alike, so no page,
 * trust pages included, logs a 404 for the icon browsers ask for by themselves.
 */
import assert from "node:assert/strict";
import { FAVICON_MAX_AGE } from "../../src/http/routes/favicon.ts";
import { createTestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";

Deno.test("[http] /favicon.ico is an icon cached for 30 days, on every host", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const patched = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { hostedSubdomain: "acme" },
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();

  for (const host of ["trust.test", "acme.trust.test"]) {
    await t.step(host, async () => {
      const res = await ctx.call("GET", "/favicon.ico", { headers: { host } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "image/x-icon");
      assert.equal(res.headers.get("cache-control"), `public, max-age=${FAVICON_MAX_AGE}`);
      assert.ok(FAVICON_MAX_AGE >= 30 * 24 * 3600);
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.deepEqual([...bytes.slice(0, 6)], [0, 0, 1, 0, 1, 0], "an ICO with one image");
      assert.deepEqual([bytes[6], bytes[7]], [32, 32], "32 × 32");
      const png = new DataView(bytes.buffer).getUint32(18, true);
      assert.deepEqual([...bytes.slice(png + 1, png + 4)], [0x50, 0x4e, 0x47], "a PNG inside");
      const again = await ctx.call("GET", "/favicon.ico", {
        headers: { host, "if-none-match": res.headers.get("etag")! },
      });
      assert.equal(again.status, 304);
      await again.body?.cancel();
    });
  }
});
