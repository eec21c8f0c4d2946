/**
 * The shipped edge, deploy/varnish/default.vcl, in a real Varnish in front of a stub origin
 * whose answers are set per path: what it caches and for how long, what it passes, how a purge
 * by tag is answered and who may ask for one.
 */
import assert from "node:assert/strict";
import { startVarnish } from "../support/varnish.ts";

const TAGGED = {
  "cache-control": "public, s-maxage=300",
  "cdn-cache-control": "public, max-age=86400",
  "deno-cdn-cache-control": "public, max-age=86400",
  "surrogate-key": "org-o1 project-p1 domain-trust.example",
  "deno-cache-tag": "org-o1,project-p1,domain-trust.example",
};

Deno.test("[e2e] the shipped Varnish configuration caches tagged pages until a purge", async (t) => {
  let generation = 0;
  const hits = new Map<string, number>();
  /** Extra headers per path; the body says which generation answered. */
  const routes: Record<string, Record<string, string>> = {
    "/tagged": TAGGED,
    "/short": {
      ...TAGGED,
      "cdn-cache-control": "public, max-age=1",
      "surrogate-key": "project-p2",
    },
    "/untagged": { "cache-control": "public, s-maxage=300" },
    "/immutable": {
      "cache-control": "public, max-age=31536000, immutable",
      "deno-cache-id": "v1",
      "surrogate-key": "project-p1",
    },
    "/cookie": { ...TAGGED, "set-cookie": "a=b" },
    "/error": TAGGED,
    "/edge-no-store": { ...TAGGED, "cdn-cache-control": "no-store" },
  };
  const origin = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const headers = routes[path] ?? {};
    return new Response(`${path} ${generation}`, {
      status: path === "/error" ? 503 : 200,
      headers: { "content-type": "text/plain", ...headers },
    });
  });
  await using varnish = await startVarnish({ backendPort: origin.addr.port });
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${varnish.url}${path}`, { headers });
    return { res, body: await res.text(), cache: res.headers.get("x-cache") };
  };
  try {
    await t.step("a tagged page: MISS, then HIT; tags are not shown to clients", async () => {
      assert.equal((await get("/tagged")).cache, "MISS");
      const second = await get("/tagged");
      assert.equal(second.cache, "HIT");
      assert.equal(second.body, "/tagged 0");
      assert.equal(hits.get("/tagged"), 1);
      assert.equal(second.res.headers.get("surrogate-key"), null);
      assert.equal(second.res.headers.get("xkey"), null);
      assert.equal(second.res.headers.get("deno-cache-tag"), null);
      assert.equal(second.res.headers.get("cache-control"), "public, s-maxage=300");
    });

    await t.step("the TTL comes from CDN-Cache-Control, with no grace after it", async () => {
      await get("/short");
      assert.equal((await get("/short")).cache, "HIT");
      generation = 1;
      await new Promise((resolve) => setTimeout(resolve, 1_300));
      const after = await get("/short");
      assert.equal(after.cache, "MISS");
      assert.equal(after.body, "/short 1", "the expired object is not served stale");
    });

    await t.step(
      "untagged, Set-Cookie, 5xx and CDN no-store responses are not cached",
      async () => {
        for (const path of ["/untagged", "/cookie", "/error", "/edge-no-store"]) {
          await get(path);
          const second = await get(path);
          assert.equal(second.cache, "MISS", path);
          assert.equal(hits.get(path), 2, path);
        }
      },
    );

    await t.step("requests with Authorization or Cookie go to the origin", async () => {
      await get("/tagged");
      const before = hits.get("/tagged")!;
      assert.equal((await get("/tagged", { authorization: "Bearer x" })).cache, "MISS");
      assert.equal((await get("/tagged", { cookie: "session=1" })).cache, "MISS");
      assert.equal(hits.get("/tagged"), before + 2);
    });

    await t.step("an immutable versioned page is kept by its Cache-Control", async () => {
      await get("/immutable");
      assert.equal((await get("/immutable")).cache, "HIT");
    });

    await t.step("PURGE by tag: 200 with the count; the next read is the origin's", async () => {
      generation = 2;
      await get("/tagged");
      const purged = await varnish.purge(["project-p1"]);
      assert.equal(purged, 2, "the tagged page and the immutable one");
      const after = await get("/tagged");
      assert.equal(after.cache, "MISS");
      assert.equal(after.body, "/tagged 2");
      assert.equal((await get("/immutable")).cache, "MISS");
      assert.equal(await varnish.purge(["org-none"]), 0);
    });

    await t.step("PURGE without tags is 400; from another address 403", async () => {
      const bare = await fetch(`${varnish.url}/`, { method: "PURGE" });
      await bare.body?.cancel();
      assert.equal(bare.status, 400);
      const status = await purgeFrom(varnish.proxyPort, "203.0.113.9", "project-p1");
      assert.equal(status, 403);
      assert.equal((await get("/tagged")).cache, "HIT", "nothing was purged");
      assert.equal(await purgeFrom(varnish.proxyPort, "127.0.0.1", "project-p1"), 200);
    });
  } finally {
    await varnish.stop();
    await origin.shutdown();
  }
});

/** A PURGE sent through the PROXY-protocol port as if from `client`; the status. */
async function purgeFrom(port: number, client: string, tags: string): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const request = `PROXY TCP4 ${client} 127.0.0.1 40000 80\r\n` +
      `PURGE / HTTP/1.1\r\nHost: edge\r\nxkey-purge: ${tags}\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(request));
    const buffer = new Uint8Array(4096);
    const read = await conn.read(buffer);
    const head = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    return Number(head.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
  } finally {
    conn.close();
  }
}
