import assert from "node:assert/strict";
import { latestTrustJson } from "../../src/serve/bodies.ts";
import { createFastPath } from "../../src/serve/fast_path.ts";
import { createArtifactCache } from "../../src/serve/artifacts.ts";
import { createPublicCache } from "../../src/serve/public_cache.ts";
import { createTestApp, TEST_BASE_URL } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";

const PATH = "/trust/acme/trust.json";

/** Status, headers (without Date) and body of a response, for comparing two answers. */
async function described(res: Response) {
  const headers = [...res.headers].filter(([name]) => name !== "date");
  return { status: res.status, headers, body: new Uint8Array(await res.arrayBuffer()) };
}

Deno.test("[http] trust.json fast path: answers from memory exactly as the router does", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);

  // The publish dropped the app's own cache, so this first read goes through the router.
  const routed = await described(await ctx.call("GET", PATH));
  assert.equal(routed.status, 200);

  // A fast path of its own, over caches of its own: nothing is in them yet.
  const services = {
    ...ctx.services,
    publicCache: createPublicCache(),
    artifacts: createArtifactCache(),
  };
  const fastPath = createFastPath(services);
  const request = (url: string, init?: RequestInit) => new Request(url, init);

  await t.step("a cold cache declines", async () => {
    assert.equal(fastPath(request(`${TEST_BASE_URL}${PATH}`)), null);
    // A read through these services fills both caches: the view of the slug and the bytes.
    await latestTrustJson(services, "acme");
  });

  await t.step("warm: the same status, headers and bytes as the routed answer", async () => {
    // Each answer is a clone of one prepared response: every one carries the whole document.
    for (let i = 0; i < 3; i++) {
      const fast = fastPath(request(`${TEST_BASE_URL}${PATH}?any=query`));
      assert.ok(fast, "answered from memory");
      assert.deepEqual(await described(fast), routed);
    }
  });

  await t.step("If-None-Match with the digest answers 304 without a body", async () => {
    const etag = fastPath(request(`${TEST_BASE_URL}${PATH}`))!.headers.get("etag")!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const res = fastPath(request(`${TEST_BASE_URL}${PATH}`, {
        headers: { "if-none-match": header },
      }));
      assert.equal(res?.status, 304, header);
      assert.equal(res.headers.get("etag"), etag);
      assert.equal(res.headers.get("content-type"), null);
      assert.equal(await res.text(), "");
    }
    const changed = fastPath(request(`${TEST_BASE_URL}${PATH}`, {
      headers: { "if-none-match": '"sha256:0000"' },
    }));
    assert.equal(changed?.status, 200);
    await changed.body?.cancel();
  });

  await t.step("HEAD gets the GET answer; the HTTP server sends only its headers", async () => {
    const head = fastPath(request(`${TEST_BASE_URL}${PATH}`, { method: "HEAD" }));
    assert.ok(head);
    assert.deepEqual(await described(head), routed);
  });

  await t.step("serves IP literals and single-label hosts: they can only be the service", () => {
    for (const origin of ["http://127.0.0.1:8000", "http://[::1]:8000", "http://localhost"]) {
      const res = fastPath(request(`${origin}${PATH}`));
      assert.equal(res?.status, 200, origin);
    }
  });

  await t.step("declines whatever the router must decide", () => {
    const declined = [
      request(`http://trust.acme.example${PATH}`), // a possible custom domain
      request(`${TEST_BASE_URL}${PATH}`, { method: "POST" }),
      request(`${TEST_BASE_URL}/trust/nobody/trust.json`),
      request(`${TEST_BASE_URL}/trust/acme/trust.json.jws`),
      request(`${TEST_BASE_URL}/trust/ac%6De/trust.json`),
      request(`${TEST_BASE_URL}/trust/acme/x/trust.json`),
      request(`${TEST_BASE_URL}/trust//trust.json`),
    ];
    for (const req of declined) assert.equal(fastPath(req), null, `${req.method} ${req.url}`);
  });

  await t.step(
    "a project made private is declined once the change invalidates the cache",
    async () => {
      const res = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
        token: ws.token,
        json: { visibility: "private" },
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      // The PATCH went through the app's own services; this instance learns it the way a second
      // instance would, from KV once its cached view is dropped.
      services.publicCache.invalidate();
      await services.publicCache.get(ctx.kv, "acme");
      assert.equal(fastPath(request(`${TEST_BASE_URL}${PATH}`)), null);
    },
  );
});
