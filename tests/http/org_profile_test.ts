import assert from "node:assert/strict";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { team } from "../support/fixtures.ts";
import { jpegDeclaring, pngDeclaring, webpDeclaring } from "../support/images.ts";
import { sha256HexSync } from "../../src/lib/hash.ts";
import { setOrganizationLogo } from "../../src/store/org_profiles.ts";

const fixture = (name: string) =>
  Deno.readFileSync(new URL(`../fixtures/logos/${name}`, import.meta.url));

Deno.test("[http] organization profile: members read, owners change, refusals change nothing", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId } = await team(ctx);
  const path = `/organizations/${orgId}/profile`;

  await t.step("an unset profile reads as nulls, for owners and members", async () => {
    for (const token of [owner, member]) {
      const res = await ctx.call("GET", path, { token });
      assert.equal(res.status, 200);
      const { profile } = await res.json();
      assert.equal(profile.organizationId, orgId);
      assert.equal(profile.displayName, null);
      assert.deepEqual(profile.securityContact, { email: null, url: null });
      assert.equal(profile.updatedAt, null);
    }
  });

  await t.step("401 without a token, 403 for non-members (reads and writes)", async () => {
    assert.equal((await ctx.call("GET", path)).status, 401);
    assert.equal((await ctx.call("GET", path, { token: stranger })).status, 403);
    const unknown = `/organizations/${crypto.randomUUID()}/profile`;
    assert.equal((await ctx.call("GET", unknown, { token: owner })).status, 403);
  });

  await t.step("refused changes leave KV as it was", async () => {
    const before = await snapshotKv(ctx.kv);
    const attempts: [string, Record<string, unknown>, number][] = [
      ["", { displayName: "X" }, 401],
      [stranger, { displayName: "X" }, 403],
      [member, { displayName: "X" }, 403],
      [owner, { website: "http://acme.test" }, 400],
      [owner, { website: "javascript:alert(1)" }, 400],
      [owner, { brandColor: "#ffcc00" }, 400],
      [owner, { brandColor: "red" }, 400],
      [owner, { description: "x".repeat(501) }, 400],
      [owner, { description: "bell\u0007" }, 400],
      [owner, { securityContact: { email: "not an email" } }, 400],
      [owner, { unknown: true }, 400],
    ];
    for (const [token, json, status] of attempts) {
      const res = await ctx.call("PATCH", path, { token: token || undefined, json });
      assert.equal(res.status, status, JSON.stringify(json));
      assert.ok((await res.json()).error.message);
    }
    const contrast = await ctx.call("PATCH", path, {
      token: owner,
      json: { brandColor: "#3b82f6" },
    });
    assert.match((await contrast.json()).error.message, /4\.5:1/);
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("an owner sets fields; absent fields are kept and null clears", async () => {
    const res = await ctx.call("PATCH", path, {
      token: owner,
      json: {
        displayName: "  Acme, Inc. ",
        description: "We build <clouds>.",
        website: "https://acme.example",
        securityContact: { email: "security@acme.example", url: "https://acme.example/security" },
        brandColor: "#1D4ED8",
      },
    });
    assert.equal(res.status, 200);
    const { profile } = await res.json();
    assert.equal(profile.displayName, "Acme, Inc.");
    assert.equal(profile.description, "We build <clouds>.");
    assert.equal(profile.brandColor, "#1d4ed8");
    assert.equal(profile.updatedAt, "2026-11-01T12:00:00.000Z");
    const again = await ctx.call("PATCH", path, {
      token: owner,
      json: { description: null, securityContact: { url: null } },
    });
    const next = (await again.json()).profile;
    assert.equal(next.description, null);
    assert.equal(next.website, "https://acme.example");
    assert.deepEqual(next.securityContact, { email: "security@acme.example", url: null });
    const read = await (await ctx.call("GET", path, { token: member })).json();
    assert.deepEqual(read.profile, next);
  });
});

Deno.test("[http] organization logo: sniffed, limited, served strictly", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId } = await team(ctx);
  const path = `/organizations/${orgId}/logo`;
  const put = (token: string | undefined, body: Uint8Array, type = "image/png") =>
    ctx.call("PUT", path, { token, body: body as BodyInit, headers: { "content-type": type } });

  await t.step(
    "PNG, JPEG and WebP are accepted by their bytes, whatever the header says",
    async () => {
      for (
        const [file, type] of [["logo.png", "image/png"], ["logo.jpg", "image/jpeg"], [
          "logo.webp",
          "image/webp",
        ]]
      ) {
        const bytes = fixture(file);
        const res = await put(owner, bytes, "application/octet-stream");
        assert.equal(res.status, 200, file);
        const { logo } = (await res.json()).profile;
        assert.equal(logo.contentType, type);
        assert.equal(logo.size, bytes.length);
        const url = new URL(logo.url);
        assert.match(url.pathname, /^\/public\/logos\/[0-9a-f]{64}\.(png|jpg|webp)$/);
        const served = await ctx.call("GET", url.pathname);
        assert.equal(served.status, 200);
        assert.equal(served.headers.get("content-type"), type);
        assert.equal(served.headers.get("x-content-type-options"), "nosniff");
        assert.equal(served.headers.get("cache-control"), "public, max-age=31536000, immutable");
        assert.match(served.headers.get("content-security-policy") ?? "", /^default-src 'none'/);
        assert.deepEqual(new Uint8Array(await served.arrayBuffer()), bytes);
        const etag = served.headers.get("etag")!;
        const cached = await ctx.call("GET", url.pathname, { headers: { "if-none-match": etag } });
        assert.equal(cached.status, 304);
      }
    },
  );

  await t.step(
    "SVG, HTML, polyglots, empty and oversized bodies are refused; KV unchanged",
    async () => {
      const before = await snapshotKv(ctx.kv);
      const text = (s: string) => new TextEncoder().encode(s);
      const png = fixture("logo.png");
      const svg = text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      const svgRes = await put(owner, svg, "image/svg+xml");
      assert.equal(svgRes.status, 415);
      const { error } = await svgRes.json();
      assert.equal(error.code, "unsupported_media_type");
      assert.match(error.message, /SVG/);
      const html = text("<!doctype html><script>alert(1)</script>");
      assert.equal((await put(owner, html, "image/png")).status, 415);
      const polyglot = new Uint8Array([...png, ...text("<html><script>alert(1)</script>")]);
      assert.equal((await put(owner, polyglot)).status, 415);
      assert.equal((await put(owner, new Uint8Array())).status, 400);
      const huge = new Uint8Array(256 * 1024 + 1);
      huge.set(png.subarray(0, 33));
      assert.equal((await put(owner, huge)).status, 413);
      assert.equal((await put(undefined, png)).status, 401);
      assert.equal((await put(member, png)).status, 403);
      assert.equal((await put(stranger, png)).status, 403);
      assert.equal((await ctx.call("DELETE", path, { token: member })).status, 403);
      assert.equal(await snapshotKv(ctx.kv), before);
    },
  );

  await t.step("a logo URL answers only for uploaded logos with their own extension", async () => {
    const { profile } = await (await ctx.call("GET", `/organizations/${orgId}/profile`, {
      token: member,
    })).json();
    const hex = profile.logo.sha256;
    for (const bad of [`${hex}.png`, `${hex}.svg`, `${"0".repeat(64)}.webp`, "x", `${hex}`]) {
      const res = await ctx.call("GET", `/public/logos/${bad}`);
      assert.equal(res.status, 404, bad);
      assert.equal((await res.json()).error.code, "not_found");
    }
  });

  await t.step("DELETE removes the logo from the profile", async () => {
    const res = await ctx.call("DELETE", path, { token: owner });
    assert.equal(res.status, 200);
    assert.equal((await res.json()).profile.logo, null);
  });
});

Deno.test("[http] organization logo: an image declaring more than 4096 × 4096 pixels is refused", async (t) => {
  await using ctx = await createTestApp();
  const { owner, orgId } = await team(ctx);
  const path = `/organizations/${orgId}/logo`;
  const put = (body: Uint8Array) =>
    ctx.call("PUT", path, {
      token: owner,
      body: body as BodyInit,
      headers: { "content-type": "image/png" },
    });

  await t.step("50 000 × 50 000 in PNG, JPEG and WebP: 413, nothing stored", async () => {
    const before = await snapshotKv(ctx.kv);
    for (
      const [what, bytes] of [
        ["PNG", pngDeclaring(50_000, 50_000)],
        ["JPEG", jpegDeclaring(50_000, 50_000)],
        ["WebP", webpDeclaring(50_000, 50_000)],
        ["PNG one pixel too wide", pngDeclaring(4097, 1)],
        ["PNG one pixel too tall", pngDeclaring(1, 4097)],
      ] as const
    ) {
      const res = await put(bytes);
      assert.equal(res.status, 413, what);
      const { error } = await res.json();
      assert.equal(error.code, "payload_too_large", what);
      assert.match(error.message, /at most 4096 × 4096 pixels; this one declares \d+ × \d+/, what);
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("a header without a size is 415", async () => {
    const res = await put(pngDeclaring(0, 10));
    assert.equal(res.status, 415);
    assert.match((await res.json()).error.message, /declares no size/);
  });

  await t.step("4096 × 4096 is accepted", async () => {
    const res = await put(pngDeclaring(4096, 4096));
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });

  await t.step("an oversized logo stored before the limit is no longer served", async () => {
    const bytes = pngDeclaring(50_000, 50_000);
    const sha256 = sha256HexSync(bytes);
    await ctx.services.blobs.put("logo", bytes);
    await setOrganizationLogo(ctx.kv, orgId, {
      logo: { sha256, contentType: "image/png", size: bytes.length },
      now: ctx.clock.now(),
    });
    const res = await ctx.call("GET", `/public/logos/${sha256}.png`);
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.code, "not_found");
  });
});
