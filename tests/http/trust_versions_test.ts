/**
 * The version history over HTTP: JSON for API clients, HTML for browsers and Markdown for
 * agents (by Accept or by suffix), pages by cursor, each change with its state before and
 * after and its reason, the same on each version's stored page; private and unknown
 * projects answer 404; the profile search lists public, published projects only.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import {
  collector,
  evidenceItem,
  publishVersion,
  type Workspace,
  workspace,
} from "../support/fixtures.ts";

const SCAN = "evidence.vulnerability_scan";

async function sendScan(ctx: TestApp, ws: Workspace, secret: string, critical: number) {
  const item = evidenceItem(ctx, { summary: { critical, high: 0, medium: 0, low: 0 } }, {
    evidenceType: "vulnerability_scan",
  });
  const res = await ctx.call("POST", "/ingest/evidence", {
    token: secret,
    json: { projectId: ws.project.id, ...item },
  });
  assert.equal(res.status, 201, await res.text());
}

/** A public project published three times: scan failing, then passing, then unchanged. */
async function history(ctx: TestApp) {
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  await sendScan(ctx, ws, secret, 2);
  assert.equal(await publishVersion(ctx, ws), 1);
  ctx.clock.advance(5 * 60_000);
  await sendScan(ctx, ws, secret, 0);
  assert.equal(await publishVersion(ctx, ws), 2);
  ctx.clock.advance(60_000);
  assert.equal(await publishVersion(ctx, ws), 3);
  const hidden = await workspace(ctx, "bob", { projectSlug: "acme-hidden", visibility: "private" });
  await publishVersion(ctx, hidden);
  return ws;
}

async function get(ctx: TestApp, path: string, accept?: string) {
  return await ctx.call("GET", path, { headers: accept ? { accept } : {} });
}

Deno.test("[http] version history: formats, pages, changes with reasons, 404s", async (t) => {
  await using ctx = await createTestApp();
  await history(ctx);

  await t.step("JSON lists versions newest first with before → after and the reason", async () => {
    const res = await get(ctx, "/trust/acme/versions");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(res.headers.get("vary"), "Accept, Accept-Encoding");
    const body = await res.json();
    assert.deepEqual(Object.keys(body), ["versions", "nextCursor"]);
    assert.equal(body.nextCursor, null);
    assert.deepEqual(body.versions.map((v: { version: number }) => v.version), [3, 2, 1]);
    const [v3, v2, v1] = body.versions;
    assert.deepEqual(v3.changes, [], "nothing changed in version 3");
    const scan = v2.changes.find((c: { key: string }) => c.key === SCAN);
    assert.deepEqual(
      { from: scan.from, to: scan.to },
      { from: "fail", to: "pass" },
      JSON.stringify(v2.changes),
    );
    assert.match(scan.reason, /0 critical/);
    const first = v1.changes.find((c: { key: string }) => c.key === SCAN);
    assert.equal(first.from, null);
    assert.equal(first.to, "fail");
    assert.match(first.reason, /2 critical/);
    assert.equal(v2.previousDigest, v1.digest, "the hash chain is kept");
  });

  await t.step("pages follow nextCursor down to version 1", async () => {
    const seen: number[] = [];
    let path = "/trust/acme/versions?limit=1";
    for (let i = 0; i < 5 && path; i++) {
      const body = await (await get(ctx, path)).json();
      seen.push(...body.versions.map((v: { version: number }) => v.version));
      path = body.nextCursor ? `/trust/acme/versions?limit=1&cursor=${body.nextCursor}` : "";
    }
    assert.deepEqual(seen, [3, 2, 1]);
    const older = await (await get(ctx, "/trust/acme/versions?cursor=3")).json();
    assert.deepEqual(older.versions.map((v: { version: number }) => v.version), [2, 1]);
  });

  await t.step("browsers get the HTML page, by Accept or by .html", async () => {
    for (
      const [path, accept] of [["/trust/acme/versions", "text/html"], [
        "/trust/acme/versions.html",
        undefined,
      ]] as const
    ) {
      const res = await get(ctx, path, accept);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(res.headers.get("content-security-policy") ?? "", /default-src 'none'/);
      const page = await res.text();
      assert.match(page, /<h1 id="title">alice project<\/h1>/);
      assert.match(page, /Changes since version 1/);
      assert.match(page, /No control changed state since version 2\./);
      assert.match(page, /0 critical/);
      assert.match(page, /First published version/);
      assert.match(page, /href="http:\/\/trust\.test\/trust\/acme\/versions\/2\/index\.html"/);
    }
  });

  await t.step(
    "each version's trust.json link is a download, not raw JSON in the window",
    async () => {
      const page = await (await get(ctx, "/trust/acme/versions.html")).text();
      const links = [...page.matchAll(/<a href="[^"]*\/versions\/(\d+)\/trust\.json"([^>]*)>/g)];
      assert.deepEqual(links.map((m) => m[1]), ["3", "2", "1"]);
      for (const [, n, attributes] of links) {
        assert.match(attributes, new RegExp(`download="acme-v${n}-trust\\.json"`));
        assert.match(attributes, /type="application\/json"/);
      }
    },
  );

  await t.step("the HTML page links to older versions with the same limit", async () => {
    const page = await (await get(ctx, "/trust/acme/versions.html?limit=2")).text();
    assert.match(
      page,
      /href="http:\/\/trust\.test\/trust\/acme\/versions\.html\?cursor=2&amp;limit=2"/,
    );
    const older = await (await get(ctx, "/trust/acme/versions.html?cursor=2&limit=2")).text();
    assert.match(older, /Version 1/);
    assert.doesNotMatch(older, /Version 3/);
    assert.match(older, /Newest versions/);
  });

  await t.step("agents get Markdown, by Accept or by .md", async () => {
    for (
      const [path, accept] of [["/trust/acme/versions", "text/markdown"], [
        "/trust/acme/versions.md",
        undefined,
      ]] as const
    ) {
      const res = await get(ctx, path, accept);
      assert.match(res.headers.get("content-type") ?? "", /^text\/markdown/);
      const text = await res.text();
      assert.match(text, /^# alice project: version history/);
      assert.match(
        text,
        /\*\*Vulnerability scan\*\* \(`evidence\.vulnerability_scan`\): fail → pass\. .*0 critical/,
      );
    }
  });

  await t.step("each version's stored page lists its changes since the previous one", async () => {
    const html = await (await get(ctx, "/trust/acme/versions/2/index.html")).text();
    assert.match(html, /<h2 id="changes-title">Changes since version 1<\/h2>/);
    assert.match(html, /Vulnerability scan/);
    assert.match(html, /0 critical/);
    const md = await (await get(ctx, "/trust/acme/versions/2/index.md")).text();
    assert.match(md, /## Changes since version 1/);
    assert.match(md, /fail → pass/);
    const latest = await (await get(ctx, "/trust/acme", "text/html")).text();
    assert.match(latest, /No control changed state since version 2\./);
    assert.match(latest, /href="http:\/\/trust\.test\/trust\/acme\/versions\.html"/);
  });

  await t.step("private and unknown projects answer 404 in every format", async () => {
    for (const slug of ["acme-hidden", "nobody"]) {
      for (const path of [`/trust/${slug}/versions`, `/trust/${slug}/versions.html`]) {
        for (const accept of [undefined, "text/html", "text/markdown"]) {
          const res = await get(ctx, path, accept);
          assert.equal(res.status, 404, `${path} ${accept}`);
          await res.body?.cancel();
        }
      }
    }
  });

  await t.step("a bad cursor or limit is a 400 in the error envelope", async () => {
    for (const query of ["cursor=0", "cursor=abc", "limit=0", "limit=101", "cursor=1e3"]) {
      const res = await get(ctx, `/trust/acme/versions?${query}`);
      assert.equal(res.status, 400, query);
      assert.ok((await res.json()).error.code, query);
    }
  });

  await t.step(
    "search finds public published projects by name or slug, never private ones",
    async () => {
      const res = await get(ctx, "/public/trust-profiles?query=ACME");
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.deepEqual(body.profiles.map((p: { slug: string }) => p.slug), ["acme"]);
      assert.deepEqual(Object.keys(body.profiles[0]), [
        "slug",
        "name",
        "overallState",
        "version",
        "publishedAt",
        "organization",
      ]);
      assert.equal(body.profiles[0].version, 3);
      const byName = await (await get(ctx, "/public/trust-profiles?query=alice%20proj")).json();
      assert.deepEqual(byName.profiles.map((p: { slug: string }) => p.slug), ["acme"]);
      const hidden = await (await get(ctx, "/public/trust-profiles?query=bob")).json();
      assert.deepEqual(hidden.profiles, []);
      assert.equal((await get(ctx, "/public/trust-profiles")).status, 400);
      assert.equal((await get(ctx, "/public/trust-profiles?query=")).status, 400);
    },
  );
});
