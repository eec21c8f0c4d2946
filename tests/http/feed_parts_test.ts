/**
 * The feed stored in parts: a version stores its feed's head and its own entry (the other
 * entries are the blobs earlier versions stored) and the list of its parts. Over 55 versions
 * (past the 50 entries a feed keeps): every version's feed, joined from its parts, is the feed
 * rendered whole from its history, byte for byte; a version stores one new entry blob, not 50;
 * the latest feed served from parts and from the former whole blob (a version stored before
 * parts) is byte-identical with the same ETag, with updates merged in, in every encoding; the
 * blob collector's references name every part.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";
import { getPublication, listPublications } from "../../src/store/publications.ts";
import { publicationKey } from "../../src/store/keys.ts";
import { createArtifactCache } from "../../src/serve/artifacts.ts";
import { latestFeed } from "../../src/serve/feed.ts";
import { renderAtomFeed } from "../../src/publish/render/feed.ts";
import { publicUrls } from "../../src/publish/urls.ts";
import { BLOB_REFERENCE_SOURCES } from "../../src/store/blob_references.ts";
import type { Publication } from "../../src/domain/publication.ts";

const VERSIONS = 55;

async function publishMany(t: TestApp, projectId: string, token: string, count: number) {
  for (let i = 0; i < count; i++) {
    const res = await t.call("POST", `/projects/${projectId}/publish`, { token });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    t.clock.advance(10_000);
  }
}

/** Every blob key in the store. */
async function blobKeys(t: TestApp): Promise<Set<string>> {
  const keys = new Set<string>();
  let after: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await t.services.blobs.list({ after, limit: 500 });
    for (const blob of page) keys.add(blob.key);
    if (page.length < 500) return keys;
    after = page.at(-1)!.key;
  }
  throw new Error("too many blobs");
}

/** The feed of `version` rendered whole from the history the publication had then. */
function renderedWhole(t: TestApp, slug: string, name: string, all: Publication[], v: number) {
  const upTo = all.filter((p) => p.version <= v).sort((a, b) => b.version - a.version);
  const history = upTo.slice(0, 51);
  if (v > 1 && history[history.length - 1].version !== 1) history.push(upTo.at(-1)!);
  const urls = publicUrls(t.services.config, slug);
  return new TextEncoder().encode(renderAtomFeed({
    project: { slug, name },
    feedUrl: urls.feed,
    pageUrl: urls.page,
    versions: history,
    versionUrl: urls.versionTrustJson,
    maxEntries: 50,
  }));
}

Deno.test("every version's feed joins from parts to the whole feed; a version adds one entry", async () => {
  await using t = await createTestApp();
  const ws = await workspace(t, "feedparts", { visibility: "public" });
  const slug = ws.project.slug;
  await publishMany(t, ws.project.id, ws.token, VERSIONS);
  const all = await listPublications(t.kv, ws.project.id, VERSIONS + 1);
  assert.equal(all.length, VERSIONS);
  const cache = createArtifactCache();
  const entryBlobs = new Set<string>();
  for (const publication of all) {
    const feed = publication.artifacts.feed;
    assert.ok(feed.parts, `version ${publication.version} is stored in parts`);
    assert.equal(feed.key, feed.parts[0]);
    assert.equal(feed.encodings, undefined);
    assert.equal(feed.parts.length, Math.min(publication.version, 50) + 2);
    for (const part of feed.parts.slice(1, -1)) entryBlobs.add(part);
    const joined = await cache.bytes(t.services.blobs, feed);
    const whole = renderedWhole(t, slug, "feedparts project", all, publication.version);
    assert.deepEqual(joined, whole, `version ${publication.version}`);
  }
  // One entry blob per version, shared by every feed that carries it.
  assert.equal(entryBlobs.size, VERSIONS);
  const latest = all[0];
  const previous = all[1];
  assert.deepEqual(
    latest.artifacts.feed.parts!.slice(2, -1),
    previous.artifacts.feed.parts!.slice(1, -2),
  );

  // The collector marks every part of every version's feed.
  const source = BLOB_REFERENCE_SOURCES.find((s) => s.name === "publication artifacts")!;
  const marked = new Set<string>();
  for await (const entry of t.kv.list({ prefix: ["publications", ws.project.id] })) {
    for (const key of source.keysOf(entry)) marked.add(key);
  }
  for (const publication of all) {
    for (const part of publication.artifacts.feed.parts!) assert.ok(marked.has(part), part);
  }
  const stored = await blobKeys(t);
  for (const key of marked) assert.ok(stored.has(key), key);
});

Deno.test("the latest feed is byte-identical served from parts and from a whole blob", async () => {
  await using t = await createTestApp();
  const ws = await workspace(t, "feedold", { visibility: "public" });
  const slug = ws.project.slug;
  await publishMany(t, ws.project.id, ws.token, 3);
  const update = await t.call("POST", `/projects/${ws.project.id}/updates`, {
    token: ws.token,
    json: { kind: "incident", title: "Latency", body: "Investigating." },
  });
  assert.equal(update.status, 201);
  await update.body?.cancel();
  t.clock.advance(60_000);
  await publishMany(t, ws.project.id, ws.token, 1);

  const reads = () => ({
    kv: t.kv,
    blobs: t.services.blobs,
    config: t.services.config,
    artifacts: createArtifactCache(),
  });
  const fromParts = await latestFeed(reads(), slug);
  const served = await t.call("GET", `/trust/${slug}/feed.xml`);
  assert.equal(served.status, 200);
  assert.deepEqual(new Uint8Array(await served.arrayBuffer()), fromParts.bytes);
  assert.equal(served.headers.get("etag"), fromParts.etag);
  assert.match(new TextDecoder().decode(fromParts.bytes), /Ongoing incident: Latency/);
  for (const coding of ["gzip", "br"] as const) {
    const res = await t.call("GET", `/trust/${slug}/feed.xml`, {
      headers: { "accept-encoding": coding },
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), coding);
    const body = coding === "gzip" ? res.body!.pipeThrough(new DecompressionStream("gzip")) : null;
    if (body) {
      assert.deepEqual(new Uint8Array(await new Response(body).arrayBuffer()), fromParts.bytes);
    } else {
      const { brotliDecompressSync } = await import("node:zlib");
      assert.deepEqual(
        new Uint8Array(brotliDecompressSync(new Uint8Array(await res.arrayBuffer()))),
        fromParts.bytes,
      );
    }
  }

  // The same version stored the former way: its feed one whole blob under `key`.
  const latest = (await getPublication(t.kv, ws.project.id, 4))!;
  const whole = await createArtifactCache().bytes(t.services.blobs, latest.artifacts.feed);
  const key = await t.services.blobs.put("artifact", whole);
  assert.equal(`sha256:${key.slice(key.indexOf("/") + 1)}`, latest.artifacts.feed.digest);
  const former: Publication = {
    ...latest,
    artifacts: { ...latest.artifacts, feed: { key, digest: latest.artifacts.feed.digest } },
  };
  await t.kv.set(publicationKey(ws.project.id, 4), former);
  const fromWhole = await latestFeed(reads(), slug);
  assert.deepEqual(fromWhole.bytes, fromParts.bytes);
  assert.equal(fromWhole.etag, fromParts.etag);

  // A part that is missing is an error, never another document.
  const parted = latest.artifacts.feed;
  const broken = { ...parted, parts: [parted.parts![0], ...parted.parts!.slice(2)] };
  await assert.rejects(() => createArtifactCache().bytes(t.services.blobs, broken));
});
