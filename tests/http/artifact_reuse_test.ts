/**
 * What a version stores: a document whose bytes did not change since the previous version
 * (the badges, here) is the same blob, referenced again, not a copy; the feed is stored
 * without encodings (it is served with updates merged in and compressed per response), and
 * is still served compressed, and byte-identical, to a client that accepts it.
 */
import assert from "node:assert/strict";
import { createTestApp } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";
import { getPublication } from "../../src/store/publications.ts";
import { createArtifactCache } from "../../src/serve/artifacts.ts";

Deno.test("unchanged artifacts are referenced again; the feed is stored bare", async () => {
  await using t = await createTestApp();
  const ws = await workspace(t, "rea", { visibility: "public" });
  for (let i = 0; i < 2; i++) {
    const res = await t.call("POST", `/projects/${ws.project.id}/publish`, { token: ws.token });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    t.clock.advance(1000);
  }
  const [first, second] = await Promise.all([
    getPublication(t.kv, ws.project.id, 1),
    getPublication(t.kv, ws.project.id, 2),
  ]);
  assert.ok(first && second);
  assert.equal(second.artifacts.badgeSvg.key, first.artifacts.badgeSvg.key);
  assert.deepEqual(second.artifacts.badgeSvg.encodings, first.artifacts.badgeSvg.encodings);
  assert.notEqual(second.artifacts.trustJson.key, first.artifacts.trustJson.key);
  assert.equal(second.artifacts.feed.encodings, undefined);
  assert.ok(second.artifacts.html.encodings?.br, "other documents keep their encodings");

  // The feed is stored in parts (tests/http/feed_parts_test.ts); joined, it is what is served.
  const stored = await createArtifactCache().bytes(t.services.blobs, second.artifacts.feed);
  const plain = await t.call("GET", `/trust/${ws.project.slug}/feed.xml`);
  assert.equal(plain.status, 200);
  assert.deepEqual(new Uint8Array(await plain.arrayBuffer()), stored);
  const gzip = await t.call("GET", `/trust/${ws.project.slug}/feed.xml`, {
    headers: { "accept-encoding": "gzip" },
  });
  assert.equal(gzip.status, 200);
  assert.equal(gzip.headers.get("content-encoding"), "gzip");
  const body = gzip.body!.pipeThrough(new DecompressionStream("gzip"));
  assert.deepEqual(new Uint8Array(await new Response(body).arrayBuffer()), stored);
});
