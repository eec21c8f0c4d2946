import assert from "node:assert/strict";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { createFaultyBlobStore } from "../support/faulty_blob_store.ts";
import { collector, evidenceItem, sbomPayload, workspace } from "../support/fixtures.ts";

async function publish(ctx: TestApp, token: string, projectId: string) {
  return await ctx.call("POST", `/projects/${projectId}/publish`, { token });
}

Deno.test("[http] publish: versions, public reads, headers, visibility", async (t) => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme" });
  const id = ws.project.id;

  await t.step("before the first publish: 404 for the operator and the public", async () => {
    const res = await ctx.call("GET", `/projects/${id}/published-profile`, { token: ws.token });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  let first: Record<string, unknown> = {};
  await t.step("publish answers 201 with a completed job and version 1", async () => {
    const res = await publish(ctx, ws.token, id);
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.equal(body.job.status, "completed");
    assert.ok(body.job.startedAt && body.job.completedAt);
    assert.equal(body.publishedProfile.version, 1);
    assert.match(body.publishedProfile.artifactS3Key, /^artifact\/[0-9a-f]{64}$/);
    first = body.publishedProfile;
    const latest = await (await ctx.call("GET", `/projects/${id}/published-profile`, {
      token: ws.token,
    })).json();
    assert.deepEqual(latest.publishedProfile, first);
  });

  await t.step(
    "a private project's public reads are 404, exactly like an unknown slug",
    async () => {
      for (const path of ["/trust/acme", "/trust/acme/trust.json", "/trust/acme/badge.svg"]) {
        const res = await ctx.call("GET", path);
        const unknown = await ctx.call("GET", path.replace("acme", "nobody-here"));
        assert.equal(res.status, 404);
        assert.equal(unknown.status, 404);
        const a = (await res.json()).error;
        const b = (await unknown.json()).error;
        assert.equal(a.code, b.code);
      }
    },
  );

  await ctx.call("PATCH", `/projects/${id}`, { token: ws.token, json: { visibility: "public" } });

  await t.step(
    "trust.json is the PublishedTrustProfile; the envelope wraps the same bytes",
    async () => {
      const res = await ctx.call("GET", "/trust/acme/trust.json");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "public, s-maxage=300");
      assert.match(res.headers.get("etag") ?? "", /^"sha256:[0-9a-f]{64}"$/);
      const bytes = await res.text();
      const profile = JSON.parse(bytes);
      assert.deepEqual(Object.keys(profile), [
        "schemaVersion",
        "project",
        "version",
        "publishedAt",
        "summary",
        "controls",
        "vendor",
      ]);
      assert.equal(profile.vendor, null, "the organization has no profile");
      assert.equal(profile.schemaVersion, 1);
      assert.equal(profile.summary.totalControls, 7);
      const envelope = await ctx.call("GET", "/trust/acme");
      assert.equal(envelope.headers.get("vary"), "Accept, Accept-Encoding");
      assert.deepEqual(await envelope.json(), { profile, openUpdates: [], certifications: [] });
      const byBytes = await (await ctx.call("GET", "/trust/acme")).text();
      assert.equal(byBytes, `{"profile":${bytes},"openUpdates":[],"certifications":[]}`);
      const controls = await (await ctx.call("GET", "/trust/acme/controls")).json();
      assert.deepEqual(controls, {
        project: profile.project,
        version: 1,
        publishedAt: profile.publishedAt,
        summary: profile.summary,
        controls: profile.controls,
        vendor: null,
      });
    },
  );

  await t.step("ETag revalidation answers 304", async () => {
    const res = await ctx.call("GET", "/trust/acme/trust.json");
    const etag = res.headers.get("etag")!;
    await res.body?.cancel();
    const again = await ctx.call("GET", "/trust/acme/trust.json", {
      headers: { "if-none-match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.headers.get("etag"), etag);
  });

  await t.step("negotiation: HTML and Markdown by Accept and by suffix", async () => {
    const html = await ctx.call("GET", "/trust/acme", { headers: { accept: "text/html" } });
    assert.match(html.headers.get("content-type") ?? "", /text\/html/);
    assert.match(html.headers.get("content-security-policy") ?? "", /default-src 'none'/);
    const page = await html.text();
    assert.ok(page.includes("/trust/acme/trust.json.jws"));
    assert.ok(!page.includes("<script"));
    const md = await ctx.call("GET", "/trust/acme", { headers: { accept: "text/markdown" } });
    assert.match(md.headers.get("content-type") ?? "", /text\/markdown/);
    const mdText = await md.text();
    assert.equal(await (await ctx.call("GET", "/trust/acme.md")).text(), mdText);
    assert.equal(await (await ctx.call("GET", "/trust/acme.html")).text(), page);
  });

  await t.step(
    "the page's CSP allows exactly its own stylesheet, as recorded at publication",
    async () => {
      const res = await ctx.call("GET", "/trust/acme.html");
      const csp = res.headers.get("content-security-policy") ?? "";
      const page = await res.text();
      const style = page.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? "";
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style));
      const hash = btoa(String.fromCharCode(...new Uint8Array(digest)));
      assert.ok(csp.includes(`'sha256-${hash}'`), csp);
      const stored = await ctx.kv.get<{ htmlCsp: string }>(["publications", id, 1]);
      assert.equal(stored.value?.htmlCsp, csp, "served with the policy stored with the version");
    },
  );

  await t.step("versions are immutable and listed with their chain", async () => {
    ctx.clock.advance(60_000);
    const second = await publish(ctx, await ctx.tokenFor("alice"), id);
    assert.equal(second.status, 201);
    await second.body?.cancel();
    const { versions } = await (await ctx.call("GET", "/trust/acme/versions")).json();
    assert.deepEqual(versions.map((v: { version: number }) => v.version), [2, 1]);
    assert.equal(versions[0].previousDigest, versions[1].digest);
    assert.equal(versions[1].previousDigest, null);
    const v1 = await ctx.call("GET", "/trust/acme/versions/1/trust.json");
    assert.equal(v1.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.equal(`sha256:${await sha256(await v1.text())}`, versions[1].digest);
    for (const doc of ["trust.json.jws", "index.md", "index.html"]) {
      const res = await ctx.call("GET", `/trust/acme/versions/2/${doc}`);
      assert.equal(res.status, 200, doc);
      await res.body?.cancel();
    }
    const missing = await ctx.call("GET", "/trust/acme/versions/9/trust.json");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const bad = await ctx.call("GET", "/trust/acme/versions/0/trust.json");
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const list = await (await ctx.call("GET", `/projects/${id}/published-profiles`, {
      token: await ctx.tokenFor("alice"),
    })).json();
    assert.deepEqual(list.publishedProfiles.map((p: { version: number }) => p.version), [2, 1]);
  });

  await t.step("feed and badges", async () => {
    const feed = await ctx.call("GET", "/trust/acme/feed.xml");
    assert.match(feed.headers.get("content-type") ?? "", /application\/atom\+xml/);
    const xml = await feed.text();
    assert.equal(xml.match(/<entry>/g)?.length, 2);
    const badge = await ctx.call("GET", "/trust/acme/badge.svg");
    assert.equal(badge.headers.get("content-type"), "image/svg+xml");
    assert.match(await badge.text(), /<svg/);
    const shield = await (await ctx.call("GET", "/trust/acme/badge.json")).json();
    assert.deepEqual(Object.keys(shield).sort(), ["color", "label", "message", "schemaVersion"]);
    assert.equal(shield.message, "unknown");
  });

  await t.step("the organization trust center lists the published project", async () => {
    const center = await (await ctx.call("GET", `/public/trust/${ws.organization.slug}`)).json();
    assert.equal(center.projects.length, 1);
    assert.equal(center.projects[0].version, 2);
    const html = await ctx.call("GET", `/public/trust/${ws.organization.slug}`, {
      headers: { accept: "text/html" },
    });
    assert.match(await html.text(), /\/trust\/acme/);
    const missing = await ctx.call("GET", "/public/trust/no-such-org");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });
});

async function sha256(text: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("[http] publish: 50 concurrent publishes give versions 1..50, each chained", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const responses = await Promise.all(
    Array.from({ length: 50 }, () => publish(ctx, ws.token, ws.project.id)),
  );
  const versions = [];
  for (const res of responses) {
    assert.equal(res.status, 201);
    versions.push((await res.json()).publishedProfile.version);
  }
  assert.deepEqual(versions.sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
  const listed = (await (await ctx.call("GET", "/trust/acme/versions")).json()).versions;
  assert.equal(listed.length, 50);
  for (let i = 0; i < listed.length - 1; i++) {
    assert.equal(listed[i].previousDigest, listed[i + 1].digest, `version ${listed[i].version}`);
    const body =
      await (await ctx.call("GET", `/trust/acme/versions/${listed[i + 1].version}/trust.json`))
        .text();
    assert.equal(`sha256:${await sha256(body)}`, listed[i + 1].digest);
  }
});

Deno.test("[http] publish: a failing blob store leaves a failed job, a 500 and the previous version", async () => {
  let failNext = false;
  await using ctx = await createTestApp({
    blobs: (kv) => {
      const inner = createKvBlobStore(kv);
      const faulty = createFaultyBlobStore(inner, { failOnPut: 1 });
      return {
        ...inner,
        putMany: (kind, items) =>
          failNext ? faulty.putMany(kind, items) : inner.putMany(kind, items),
      };
    },
  });
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  assert.equal((await publish(ctx, ws.token, ws.project.id)).status, 201);
  const before = await (await ctx.call("GET", "/trust/acme/trust.json")).text();
  failNext = true;
  const res = await publish(ctx, ws.token, ws.project.id);
  assert.equal(res.status, 500);
  const { error } = await res.json();
  assert.equal(error.code, "internal");
  assert.doesNotMatch(error.message, /Injected/);
  const jobs = [];
  for await (
    const entry of ctx.kv.list<{ status: string; reason: string }>({
      prefix: ["publish_jobs", ws.project.id],
    })
  ) {
    jobs.push(entry.value);
  }
  const failed = jobs.filter((j) => j.status === "failed");
  assert.equal(failed.length, 1);
  assert.ok(failed[0].reason.length > 0);
  assert.equal(await (await ctx.call("GET", "/trust/acme/trust.json")).text(), before);
  const latest = await (await ctx.call("GET", `/projects/${ws.project.id}/published-profile`, {
    token: ws.token,
  })).json();
  assert.equal(latest.publishedProfile.version, 1);
});

Deno.test("[http] autoPublish: a state change publishes by itself; no change, no version", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const created = await ctx.call("GET", `/projects/${ws.project.id}`, { token: ws.token });
  assert.equal((await created.json()).project.autoPublish, false, "off for a new project");
  const on = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { autoPublish: true },
  });
  assert.equal((await on.json()).project.autoPublish, true);
  const c = await collector(ctx, ws);
  const recompute = () =>
    ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, { token: ws.token });
  const version = async () =>
    (await (await ctx.call("GET", "/trust/acme/trust.json")).json()).version;

  (await recompute()).body?.cancel();
  (await recompute()).body?.cancel();
  const none = await ctx.call("GET", "/trust/acme/trust.json");
  assert.equal(none.status, 404, "no automatic first publication");
  await none.body?.cancel();

  (await publish(ctx, ws.token, ws.project.id)).body?.cancel();
  assert.equal(await version(), 1);
  (await recompute()).body?.cancel();
  assert.equal(await version(), 1, "nothing changed, no new version");

  const res = await ctx.call("POST", "/ingest/evidence", {
    json: { projectId: ws.project.id, ...evidenceItem(ctx, sbomPayload(1)) },
    headers: { authorization: `Bearer ${c.secret}` },
  });
  await res.body?.cancel();
  (await recompute()).body?.cancel();
  assert.equal(await version(), 2);
  const latest = (await (await ctx.call("GET", "/trust/acme/versions")).json()).versions[0];
  assert.deepEqual(
    latest.changes.map(({ reason: _reason, ...change }: { reason: string }) => change),
    [
      { key: "collector.heartbeat", name: "Collector heartbeat", from: "unknown", to: "pass" },
      { key: "evidence.sbom", name: "Software bill of materials", from: "unknown", to: "pass" },
    ],
    "ingest also counts as the collector being seen",
  );
  for (const change of latest.changes) {
    assert.ok(typeof change.reason === "string" && change.reason.length > 0, change.key);
  }
  (await recompute()).body?.cancel();
  assert.equal(await version(), 2);

  await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { autoPublish: false },
  });
  ctx.clock.advance(10 * 86400_000);
  const token = await ctx.tokenFor("alice");
  (await ctx.call("POST", `/projects/${ws.project.id}/evaluations/recompute`, { token })).body
    ?.cancel();
  assert.equal(await version(), 2, "autoPublish off: states changed but no version");
});

Deno.test("[http] vendor text is escaped in every published format", async () => {
  await using ctx = await createTestApp();
  const hostile = "<img src=x onerror=alert(1)>";
  const ws = await workspace(ctx, "mallory", { projectSlug: "evil", visibility: "public" });
  await ctx.call("PATCH", `/projects/${ws.project.id}`, {
    token: ws.token,
    json: { name: hostile },
  });
  const { controls } = await (await ctx.call("GET", `/projects/${ws.project.id}/controls`, {
    token: ws.token,
  })).json();
  await ctx.call("PATCH", `/projects/${ws.project.id}/controls/${controls[1].id}`, {
    token: ws.token,
    json: { publicName: `"</style><script>alert(1)</script>` },
  });
  (await publish(ctx, ws.token, ws.project.id)).body?.cancel();
  const html = await (await ctx.call("GET", "/trust/evil.html")).text();
  assert.ok(!html.includes("<img"), "no img element in HTML");
  assert.ok(!html.includes("<script"), "no script element in HTML");
  assert.ok(html.includes("&lt;img src=x onerror=alert(1)&gt;"));
  const md = await (await ctx.call("GET", "/trust/evil.md")).text();
  assert.ok(!md.includes("<img"), "no raw HTML in Markdown");
  const feed = await (await ctx.call("GET", "/trust/evil/feed.xml")).text();
  assert.ok(!feed.includes("<img"), "no raw markup in the feed");
  const org = await (await ctx.call("GET", `/public/trust/${ws.organization.slug}`, {
    headers: { accept: "text/html" },
  })).text();
  assert.ok(!org.includes("<img"), "no img element on the organization page");
  const json = await (await ctx.call("GET", "/trust/evil/trust.json")).json();
  assert.equal(json.project.name, hostile, "JSON carries the text as data");
});
