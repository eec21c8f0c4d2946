/**
 * Public pages answered live are compressed too: the trust center, answers, framework, log,
 * version and document pages in HTML, Markdown and JSON, and /openapi.json (built and
 * compressed once), by Accept-Encoding with Vary and an ETag of their own that revalidates;
 * answers to requests with credentials, and answers not marked public, are never compressed.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { createTestApp, type TestApp } from "../support/app.ts";
import { team } from "../support/fixtures.ts";

function decode(bytes: Uint8Array, coding: string | null): string {
  const raw = coding === "br"
    ? brotliDecompressSync(bytes)
    : coding === "gzip"
    ? gunzipSync(bytes)
    : bytes;
  return new TextDecoder().decode(raw);
}

async function get(ctx: TestApp, path: string, headers: Record<string, string> = {}) {
  const res = await ctx.call("GET", path, { headers });
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, text: decode(bytes, res.headers.get("content-encoding")) };
}

async function vendor(ctx: TestApp) {
  const { owner, orgId, orgSlug, project } = await team(ctx);
  const post = async (path: string, json?: unknown) => {
    const res = await ctx.call("POST", path, { token: owner, json });
    assert.ok(res.ok, `${path}: ${res.status} ${await res.text()}`);
  };
  await post(`/projects/${project.id}/publish`);
  for (let i = 0; i < 3; i++) {
    await post(`/organizations/${orgId}/answers`, {
      question: `Do you encrypt data at rest in region ${i}?`,
      answer: "Yes: AES-256 on every volume and backup, keys in a managed KMS, rotated yearly.",
      category: "Data protection",
      visibility: "public",
    });
    await post(`/organizations/${orgId}/subprocessors`, {
      name: `Cloud provider ${i}`,
      purpose: "Hosting of the production environment and its backups",
      location: "EU",
      website: `https://cloud${i}.example`,
    });
    await post(`/projects/${project.id}/updates`, {
      kind: "change",
      title: `Rotated the signing keys of environment ${i}`,
      body: "Routine rotation; nothing to do for customers.",
    });
  }
  return { owner, orgSlug, slug: project.slug };
}

Deno.test("[http] public pages answered live are compressed by Accept-Encoding", async (t) => {
  await using ctx = await createTestApp();
  const { orgSlug, slug } = await vendor(ctx);
  const paths = [
    `/public/trust/${orgSlug}`,
    `/public/trust/${orgSlug}.html`,
    `/public/trust/${orgSlug}.md`,
    `/public/trust/${orgSlug}/answers`,
    `/public/trust/${orgSlug}/answers.html`,
    `/public/trust/${orgSlug}/answers.md`,
    `/public/trust/${orgSlug}/answers?q=encrypt`,
    `/public/trust/${orgSlug}/subprocessors`,
    `/trust/${slug}/frameworks`,
    `/trust/${slug}/frameworks.html`,
    `/trust/${slug}/frameworks.md`,
    `/trust/${slug}/versions.html`,
    `/trust/${slug}/updates.html`,
    `/trust/${slug}/updates.md`,
    "/log.html",
    "/log.md",
    "/openapi.json",
  ];
  for (const path of paths) {
    await t.step(path, async () => {
      const identity = await get(ctx, path);
      assert.equal(identity.res.status, 200);
      assert.equal(identity.res.headers.get("content-encoding"), null);
      assert.match(identity.res.headers.get("vary") ?? "", /\bAccept-Encoding\b/);
      for (const [accept, coding] of [["gzip, deflate, br", "br"], ["gzip", "gzip"]] as const) {
        const { res, bytes, text } = await get(ctx, path, { "accept-encoding": accept });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-encoding"), coding, `${path} ${accept}`);
        assert.match(res.headers.get("vary") ?? "", /\bAccept-Encoding\b/);
        assert.equal(res.headers.get("content-type"), identity.res.headers.get("content-type"));
        assert.ok(bytes.byteLength < identity.bytes.byteLength, `${path}: smaller with ${coding}`);
        assert.equal(text, identity.text, `${path}: the same document`);
        const etag = res.headers.get("etag");
        if (etag) {
          assert.notEqual(etag, identity.res.headers.get("etag"), "an ETag of its own");
          const again = await ctx.call("GET", path, {
            headers: { "accept-encoding": accept, "if-none-match": etag },
          });
          assert.equal(again.status, 304, `${path}: its ETag revalidates`);
          assert.equal(again.headers.get("etag"), etag);
          assert.equal(await again.text(), "");
        }
      }
    });
  }
});

Deno.test("[http] /openapi.json is serialized and compressed once, with an ETag", async () => {
  await using ctx = await createTestApp();
  const first = await get(ctx, "/openapi.json", { "accept-encoding": "br" });
  assert.equal(first.res.headers.get("content-encoding"), "br");
  assert.ok(first.bytes.byteLength < 120_000, `${first.bytes.byteLength} bytes in brotli`);
  assert.equal(JSON.parse(first.text).openapi, "3.1.0");
  const etag = first.res.headers.get("etag")!;
  assert.match(etag, /^"[0-9a-f]{32}\.br"$/);
  assert.equal(first.res.headers.get("cache-control"), "public, max-age=300");
  const second = await get(ctx, "/openapi.json", { "accept-encoding": "br" });
  assert.deepEqual(second.bytes, first.bytes, "the same bytes: prepared once");
  const notModified = await ctx.call("GET", "/openapi.json", {
    headers: { "accept-encoding": "br", "if-none-match": etag },
  });
  assert.equal(notModified.status, 304);
  await notModified.body?.cancel();
  const plain = await get(ctx, "/openapi.json");
  assert.equal(plain.res.headers.get("content-encoding"), null);
  assert.equal(plain.text, first.text);
});

Deno.test("[http] answers with credentials or not marked public are never compressed", async () => {
  await using ctx = await createTestApp();
  const { owner, orgSlug } = await vendor(ctx);
  const headers = { "accept-encoding": "br, gzip" };
  const withToken = await ctx.call("GET", `/public/trust/${orgSlug}/answers`, {
    token: owner,
    headers,
  });
  assert.equal(withToken.status, 200);
  assert.equal(withToken.headers.get("content-encoding"), null, "a request with credentials");
  await withToken.body?.cancel();
  const me = await ctx.call("GET", "/me", { token: owner, headers });
  assert.equal(me.headers.get("content-encoding"), null, "a member's own data");
  await me.body?.cancel();
  const form = await ctx.call("GET", "/signup", { headers });
  assert.equal(form.headers.get("content-encoding"), null, "a page that is not public");
  await form.body?.cancel();
});
