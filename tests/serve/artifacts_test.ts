import assert from "node:assert/strict";
import type { BlobStore } from "../../src/blobs/mod.ts";
import { AppError } from "../../src/domain/errors.ts";
import { createArtifactCache, respondWithArtifact } from "../../src/serve/artifacts.ts";
import { PROFILE_ENVELOPE } from "../../src/serve/bodies.ts";
import { TRUST_JSON_HEADERS } from "../../src/serve/headers.ts";
import { canonicalTrustPath, projectHostLookup } from "../../src/serve/hosts.ts";
import { createDomain } from "../../src/store/domains.ts";
import { serveWorld } from "./_world.ts";

/** A blob store that counts reads, to tell memory hits from blob reads. */
function counting(blobs: BlobStore) {
  const counted = { reads: 0, store: { ...blobs } as BlobStore };
  counted.store.get = (key) => {
    counted.reads++;
    return blobs.get(key);
  };
  return counted;
}

Deno.test("[serve] artifact cache: bytes read once, wrapped once, missing blobs are 404", async (t) => {
  await using world = await serveWorld();
  const artifact = world.published.artifacts.trustJson;
  const blobs = counting(world.blobs);
  const artifacts = createArtifactCache();

  await t.step("bytes are read from the blob store once, then from memory", async () => {
    assert.equal(artifacts.cached(artifact), undefined);
    const first = await artifacts.bytes(blobs.store, artifact);
    const second = await artifacts.bytes(blobs.store, artifact);
    assert.equal(blobs.reads, 1);
    assert.equal(second, first);
    assert.equal(artifacts.cached(artifact), first);
  });

  await t.step("wrapped bytes are the wrap around the stored bytes", async () => {
    const inner = new TextDecoder().decode(artifacts.cached(artifact)!);
    const wrapped = await artifacts.wrapped(blobs.store, artifact, PROFILE_ENVELOPE);
    assert.equal(new TextDecoder().decode(wrapped), `{"profile":${inner}}`);
    assert.equal(await artifacts.wrapped(blobs.store, artifact, PROFILE_ENVELOPE), wrapped);
    assert.equal(blobs.reads, 1);
  });

  await t.step("a blob missing from the store is a 404", async () => {
    const kind = artifact.key.slice(0, artifact.key.indexOf("/"));
    const missing = { key: `${kind}/${"0".repeat(64)}`, digest: `sha256:${"0".repeat(64)}` };
    const error = await artifacts.bytes(blobs.store, missing).then(() => null, (e) => e);
    assert.ok(error instanceof AppError);
    assert.equal(error.status, 404);
  });

  await t.step("two caches share nothing", () => {
    assert.equal(createArtifactCache().cached(artifact), undefined);
  });
});

Deno.test("[serve] respondWithArtifact: strong ETag, CORS headers, 304 on If-None-Match", async () => {
  await using world = await serveWorld();
  const artifact = world.published.artifacts.trustJson;
  const request = (headers: Record<string, string> = {}) =>
    new Request("http://trust.test/trust/acme", { headers });
  const ok = await respondWithArtifact(request(), world, { artifact, headers: TRUST_JSON_HEADERS });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get("etag"), `"${artifact.digest}"`);
  assert.equal(ok.headers.get("access-control-allow-origin"), "*");
  assert.equal(ok.headers.get("content-type"), TRUST_JSON_HEADERS["content-type"]);
  assert.equal(
    await ok.text(),
    await world.artifacts.bytes(world.blobs, artifact).then((b) => new TextDecoder().decode(b)),
  );

  const wrapped = await respondWithArtifact(request(), world, {
    artifact,
    headers: TRUST_JSON_HEADERS,
    wrap: PROFILE_ENVELOPE,
  });
  assert.equal(wrapped.headers.get("etag"), `"${artifact.digest}.envelope"`);
  await wrapped.body?.cancel();

  const cached = await respondWithArtifact(
    request({ "if-none-match": `W/"${artifact.digest}"` }),
    world,
    {
      artifact,
      headers: TRUST_JSON_HEADERS,
    },
  );
  assert.equal(cached.status, 304);
  assert.equal(cached.headers.get("content-type"), null);
  assert.equal(await cached.text(), "");
});

Deno.test("[serve] hosts: hosted subdomains and verified domains name their project", async () => {
  await using world = await serveWorld();
  const lookup = projectHostLookup({ ...world.config, trustPageBase: "https://trust.example" });
  assert.equal((await lookup(world.kv, "acme.trust.example"))?.id, world.acme.id);
  assert.equal(await lookup(world.kv, "x.acme.trust.example"), null);
  assert.equal(await lookup(world.kv, "nobody.trust.example"), null);
  const at = new Date().toISOString();
  await createDomain(world.kv, {
    id: crypto.randomUUID(),
    projectId: world.acme.id,
    domain: "trust.acme.example",
    verificationStatus: "verified",
    verificationMethod: "dns_txt",
    verificationToken: "token",
    verifiedAt: at,
    lastCheckedAt: null,
    createdAt: at,
    updatedAt: at,
  });
  assert.equal((await lookup(world.kv, "trust.acme.example"))?.id, world.acme.id);
  assert.equal(canonicalTrustPath(world.acme, "/"), "/trust/acme");
  assert.equal(canonicalTrustPath(world.acme, "/index.md"), "/trust/acme.md");
  assert.equal(canonicalTrustPath(world.acme, "/badge.svg"), "/trust/acme/badge.svg");
  assert.equal(canonicalTrustPath(world.acme, "/versions"), null);
});
