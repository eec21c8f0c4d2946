/**
 * Compressed public reads: every artifact of a version is stored with its gzip and brotli
 * encodings at publish time and served by Accept-Encoding (q-values honoured, identity the
 * fallback) with Vary, Content-Encoding and an ETag of its own; 304 still works; versions
 * published before encodings were stored are compressed on first read; the latest page with
 * its live block is compressed too; over a real server, HEAD
 * gives the GET's Content-Length.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { Publication } from "../../src/domain/publication.ts";
import { compress } from "../../src/lib/content_coding.ts";
import { publicationKey } from "../../src/store/keys.ts";
import { getLatestPublication } from "../../src/store/publications.ts";
import { getProjectBySlug } from "../../src/store/projects.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";
import { rawRequest } from "../support/raw_http.ts";
import { startTestServer } from "../support/server.ts";

/** Public reads of one version, each an artifact or built from one. */
const PATHS = [
  "/trust/acme/trust.json",
  "/trust/acme/trust.json.jws",
  "/trust/acme", // the JSON envelope around trust.json
  "/trust/acme.html", // the latest page with its live block
  "/trust/acme.md",
  "/trust/acme/feed.xml",
  "/trust/acme/badge.svg",
  "/trust/acme/versions/1/trust.json",
  "/trust/acme/versions/1/index.html",
  "/trust/acme/versions/1/index.md",
  "/trust/acme/versions/1/oscal-assessment-results.json",
  "/trust/acme/versions/1/vsa.intoto.json",
  "/trust/acme/versions/1/security-insights.json",
];

function decode(bytes: Uint8Array, coding: string | null): Uint8Array {
  if (coding === "br") return new Uint8Array(brotliDecompressSync(bytes));
  if (coding === "gzip") return new Uint8Array(gunzipSync(bytes));
  assert.equal(coding, null);
  return bytes;
}

async function get(ctx: TestApp, path: string, headers: Record<string, string> = {}) {
  const res = await ctx.call("GET", path, { headers });
  const body = new Uint8Array(await res.arrayBuffer());
  return { res, body, decoded: decode(body, res.headers.get("content-encoding")) };
}

async function published(ctx: TestApp) {
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  return ws;
}

Deno.test("[http] public reads are served gzip or brotli by Accept-Encoding, with Vary and their own ETag", async (t) => {
  await using ctx = await createTestApp();
  await published(ctx);

  for (const path of PATHS) {
    await t.step(path, async () => {
      const identity = await get(ctx, path);
      assert.equal(identity.res.status, 200);
      assert.equal(identity.res.headers.get("content-encoding"), null);
      assert.match(identity.res.headers.get("vary") ?? "", /\bAccept-Encoding\b/);
      const etag = identity.res.headers.get("etag")!;
      const tags = new Set([etag]);

      for (
        const [accept, coding] of [
          ["gzip, deflate, br", "br"],
          ["gzip", "gzip"],
          ["br;q=0.5, gzip", "gzip"],
          ["br, gzip;q=0", "br"],
          ["identity", null],
          ["br;q=0, gzip;q=0", null],
        ] as const
      ) {
        const { res, body, decoded } = await get(ctx, path, { "accept-encoding": accept });
        assert.equal(res.status, 200, accept);
        assert.equal(res.headers.get("content-encoding"), coding, accept);
        assert.match(res.headers.get("vary") ?? "", /\bAccept-Encoding\b/, accept);
        assert.deepEqual(decoded, identity.body, `${accept}: the same document`);
        assert.equal(res.headers.get("content-type"), identity.res.headers.get("content-type"));
        if (coding) {
          assert.ok(body.byteLength < identity.body.byteLength, `${accept}: smaller`);
          tags.add(res.headers.get("etag")!);
        } else assert.equal(res.headers.get("etag"), etag);
        // The representation's own ETag revalidates it; 304 has Vary, no Content-Encoding.
        const again = await ctx.call("GET", path, {
          headers: { "accept-encoding": accept, "if-none-match": res.headers.get("etag")! },
        });
        assert.equal(again.status, 304, accept);
        assert.equal(again.headers.get("content-encoding"), null);
        assert.match(again.headers.get("vary") ?? "", /\bAccept-Encoding\b/);
        assert.equal(await again.text(), "");
      }
      assert.equal(tags.size, 3, "identity, gzip and br: an ETag of their own");
      // Another representation's ETag does not match this one.
      const crossed = await ctx.call("GET", path, {
        headers: { "accept-encoding": "br", "if-none-match": etag },
      });
      assert.equal(crossed.status, 200);
      assert.equal(crossed.headers.get("content-encoding"), "br");
      await crossed.body?.cancel();
    });
  }

  await t.step("the encodings are stored with the version, at publish time", async () => {
    const project = (await getProjectBySlug(ctx.kv, "acme"))!;
    const publication = (await getLatestPublication(ctx.kv, project.id))!;
    for (const [name, artifact] of Object.entries(publication.artifacts)) {
      if (name === "feed") {
        // Served with the updates merged in and compressed per response: stored bare.
        assert.equal(artifact.encodings, undefined);
        continue;
      }
      const identity = (await ctx.services.blobs.get(artifact.key))!;
      for (const coding of ["br", "gzip"] as const) {
        const key = artifact.encodings?.[coding];
        if (!key) {
          // Only a few dozen bytes (badge.json's gzip): not smaller, so not stored.
          const made = await compress(identity, coding, "stored");
          assert.ok(made.byteLength >= identity.byteLength, `${name} ${coding} is not stored`);
          continue;
        }
        const stored: Uint8Array = (await ctx.services.blobs.get(key))!;
        assert.ok(stored.byteLength < identity.byteLength, `${name} ${coding}`);
        assert.deepEqual(decode(stored, coding), identity, `${name} ${coding}`);
      }
    }
    for (const name of ["trustJson", "html", "markdown", "oscal"] as const) {
      assert.ok(publication.artifacts[name]?.encodings?.br, name);
      assert.ok(publication.artifacts[name]?.encodings?.gzip, name);
    }
  });
});

Deno.test("[http] a version published before encodings were stored is compressed on first read", async () => {
  await using ctx = await createTestApp();
  const ws = await published(ctx);
  // Make version 1 look as it was stored before: no encodings on any artifact.
  const key = publicationKey(ws.project.id, 1);
  const record = (await ctx.kv.get<Publication>(key)).value!;
  for (const artifact of Object.values(record.artifacts)) delete artifact.encodings;
  await ctx.kv.set(key, record);
  for (const path of ["/trust/acme/trust.json", "/trust/acme/versions/1/index.html"]) {
    const identity = await get(ctx, path);
    assert.equal(identity.res.status, 200);
    for (const coding of ["br", "gzip"]) {
      for (let i = 0; i < 2; i++) {
        const { res, body, decoded } = await get(ctx, path, { "accept-encoding": coding });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-encoding"), coding, path);
        assert.ok(body.byteLength < identity.body.byteLength);
        assert.deepEqual(decoded, identity.body);
      }
    }
  }
});

Deno.test("[http] over a real server, HEAD gives the compressed GET's Content-Length", async () => {
  await using server = await startTestServer({ worker: false });
  const token = await server.tokenFor("alice");
  const boot = await fetch(`${server.baseUrl}/onboarding/bootstrap`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      workspaceName: "Acme",
      projectName: "Acme",
      projectSlug: "acme",
      projectVisibility: "public",
    }),
  });
  const { project } = await boot.json();
  const published = await fetch(`${server.baseUrl}/projects/${project.id}/publish`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(published.status, 201);
  await published.body?.cancel();
  for (const path of ["/trust/acme/trust.json", "/trust/acme.html", "/trust/acme/badge.svg"]) {
    for (let i = 0; i < 2; i++) { // the second answer of trust.json comes from the fast path
      for (const coding of ["br", "gzip"]) {
        const headers = { "accept-encoding": coding };
        const got = await rawRequest(server.baseUrl, {
          method: "GET",
          path,
          host: "127.0.0.1",
          headers,
        });
        assert.equal(got.status, 200, path);
        assert.equal(got.headers.get("content-encoding"), coding, path);
        const length = Number(got.headers.get("content-length"));
        assert.ok(length > 0, path);
        const head = await rawRequest(server.baseUrl, {
          method: "HEAD",
          path,
          host: "127.0.0.1",
          headers,
        });
        assert.equal(head.status, 200, path);
        assert.equal(head.body, "");
        assert.equal(head.headers.get("content-encoding"), coding, path);
        assert.equal(head.headers.get("content-length"), String(length), `${path} ${coding}`);
      }
    }
  }
});
