/**
 * Static-first public pages: the render job stores every public URL of a changed
 * organization, the request path answers those bytes while they are current, a change that
 * is not rendered yet is answered live (never an older page), the edge gets tags and a long
 * CDN lifetime only with a purge driver, and a purge that is not acknowledged is retried.
 */
import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import {
  CENTER_GROUPS,
  CENTER_PATHS,
  PROJECT_GROUPS,
  PROJECT_PATHS,
  storedScopeOf,
} from "../../src/domain/stored_urls.ts";
import { generationKey, pageKey, scopeStateKey } from "../../src/store/edge_pages.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";

const BROWSER = "text/html";

/** A project's group of stored pages (src/domain/stored_urls.ts), by name. */
const projectGroup = (name: string) => PROJECT_GROUPS.find((g) => g.name === name)!;

/** Where `path` is stored: its scope's kind and slug, and its group's name. */
function scopeOf(path: string) {
  const scope = storedScopeOf(path);
  return scope && { kind: scope.kind, slug: scope.slug, group: scope.group.name };
}

/** A local HTTP server that plays Varnish's purge endpoint, answering `status`. */
function purgeReceiver(status: () => number) {
  const received: { method: string; tags: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    received.push({ method: req.method, tags: req.headers.get("xkey-purge") ?? "" });
    return new Response("purged", { status: status() });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/`,
    received,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

async function postUpdate(
  ctx: TestApp,
  ws: { token: string; project: { id: string } },
  title: string,
) {
  const res = await ctx.call("POST", `/projects/${ws.project.id}/updates`, {
    token: ws.token,
    json: { kind: "advisory", title, body: `${title} body` },
  });
  assert.equal(res.status, 201, await res.clone().text());
}

Deno.test("[edge] stored URLs are every public GET route with only the project's or organization's slug", async () => {
  await using ctx = await createTestApp();
  const doc = await (await ctx.call("GET", "/openapi.json")).json();
  const project = new Set<string>();
  const center = new Set<string>();
  type Get = { security?: unknown[] };
  for (const [path, item] of Object.entries(doc.paths as Record<string, { get?: Get }>)) {
    if (!item.get) continue;
    // A route that needs a credential (a buyer's session or service token) answers per caller.
    if (item.get.security?.length) continue;
    const params = path.match(/\{[^}]+\}/g) ?? [];
    if (params.length !== 1) continue;
    if (path.startsWith("/trust/{projectSlug}")) {
      project.add(path.slice("/trust/{projectSlug}".length));
    }
    if (path.startsWith("/public/trust/{orgSlug}")) {
      center.add(path.slice("/public/trust/{orgSlug}".length));
    }
  }
  // Answered live on purpose: the access-request form takes its document from the query, and a
  // project's security.txt counts its Expires from the moment it is read; the trust center's
  // status changes with every answer the service gives, and the access guide and the ADS
  // document (which carries the status) read the document settings (docs/ads.md); the buyers'
  // self-service page is a shell whose data it fetches with the buyer's own token.
  center.delete("/documents/request");
  for (const live of ["/status", "/status.md", "/access", "/access.md", "/ads.json", "/buyer"]) {
    center.delete(live);
  }
  project.delete("/.well-known/security.txt");
  assert.deepEqual(
    [...project].sort(),
    PROJECT_PATHS.filter((p) => !/^\.(md|html)$/.test(p)).sort(),
  );
  assert.deepEqual([...center].sort(), CENTER_PATHS.filter((p) => !/^\.(md|html)$/.test(p)).sort());
  assert.deepEqual(scopeOf("/trust/acme.md"), { kind: "project", slug: "acme", group: "latest" });
  assert.deepEqual(scopeOf("/trust/acme/badge.svg"), {
    kind: "project",
    slug: "acme",
    group: "version",
  });
  assert.deepEqual(scopeOf("/public/trust/acme/answers.csv"), {
    kind: "center",
    slug: "acme",
    group: "answers",
  });
  // A project's index in the log shows the whole log's size: live, untagged.
  assert.equal(storedScopeOf("/log/publications/acme"), null);
  assert.equal(storedScopeOf("/trust/acme/.well-known/security.txt"), null);
  assert.equal(storedScopeOf("/log/publications/acme/1/inclusion"), null);
  assert.equal(storedScopeOf("/trust/acme/versions/1/trust.json"), null);
  assert.equal(storedScopeOf("/trust/acme/updates/abc"), null);
  assert.equal(storedScopeOf("/trust/%E0%A4%A/badge.svg"), null);
  // A slug longer than any KV key: refused by the route (400), never a 5xx.
  const long = await ctx.call("GET", `/trust/${"y".repeat(3000)}/badge.json`);
  assert.equal(long.status, 400);
  await long.body?.cancel();
});

Deno.test("[edge] the latest pages are stored bytes, current or answered live", async (t) => {
  await using purges = purgeReceiver(() => 200);
  await using ctx = await createTestApp({ env: { CDN_PURGE: "xkey", CDN_PURGE_URL: purges.url } });
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const orgId = ws.organization.id;
  const live = await (await ctx.call("GET", "/trust/acme", { headers: { accept: BROWSER } }))
    .text();

  await t.step("before any render, the route answers live, tagged for the edge", async () => {
    const res = await ctx.call("GET", "/trust/acme", { headers: { accept: BROWSER } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "public, s-maxage=300");
    assert.equal(res.headers.get("cdn-cache-control"), "public, max-age=86400");
    assert.equal(
      res.headers.get("surrogate-key"),
      `org-${orgId} project-${ws.project.id} project-${ws.project.id}-latest`,
    );
    assert.equal(
      res.headers.get("deno-cache-tag"),
      `org-${orgId},project-${ws.project.id},project-${ws.project.id}-latest`,
    );
  });

  await t.step(
    "the render stores every format and coding, and purges each group's tag once stored",
    async () => {
      const tags = await ctx.services.edge.render(orgId);
      assert.deepEqual(
        [...tags].sort(),
        [
          ...PROJECT_GROUPS.map((g) => `project-${ws.project.id}-${g.name}`),
          ...CENTER_GROUPS.map((g) => `center-${orgId}-${g.name}`),
        ].sort(),
      );
      // One purge per group as it is stored, the signed profile first (what machines poll).
      assert.deepEqual(purges.received.map((r) => r.tags), tags);
      assert.equal(tags[0], `project-${ws.project.id}-signed`);
      assert.ok(purges.received.every((r) => r.method === "PURGE"));
      for (const variant of ["html", "md", "json"] as const) {
        for (const coding of ["identity", "gzip", "br"] as const) {
          const entry = await ctx.kv.get(pageKey("/trust/acme", variant, coding));
          assert.ok(entry.value, `${variant} ${coding}`);
        }
      }
      assert.ok((await ctx.kv.get(pageKey("/trust/acme/badge.svg", "any", "identity"))).value);
      // Live on purpose: the log's index of a project shows the whole log's size.
      assert.equal(
        (await ctx.kv.get(pageKey("/log/publications/acme", "any", "identity"))).value,
        null,
      );
      assert.ok(
        (await ctx.kv.get(pageKey(`/public/trust/${ws.organization.slug}`, "html", "br"))).value,
      );
    },
  );

  await t.step("each coding is the live page's bytes; 304 by each coding's ETag", async () => {
    for (
      const [coding, decode] of [
        ["br", brotliDecompressSync],
        ["gzip", gunzipSync],
        ["identity", (b: Uint8Array) => b],
      ] as const
    ) {
      const res = await ctx.call("GET", "/trust/acme", {
        headers: { accept: BROWSER, "accept-encoding": coding },
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-encoding"), coding === "identity" ? null : coding);
      assert.match(res.headers.get("vary")!, /Accept-Encoding/);
      assert.match(res.headers.get("vary")!, /Accept\b/);
      assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
      const body = new TextDecoder().decode(decode(new Uint8Array(await res.arrayBuffer())));
      assert.equal(body, live);
      const again = await ctx.call("GET", "/trust/acme", {
        headers: {
          accept: BROWSER,
          "accept-encoding": coding,
          "if-none-match": res.headers.get("etag")!,
        },
      });
      assert.equal(again.status, 304);
    }
    const md = await ctx.call("GET", "/trust/acme.md");
    assert.match(md.headers.get("content-type")!, /text\/markdown/);
    assert.match(await md.text(), /^# /);
  });

  await t.step(
    "stored bytes are what is served: data changed behind the job's back is not seen",
    async () => {
      // Written straight into KV, without the change's generation bump: only a stored page
      // explains an answer that does not show it.
      const project = await ctx.kv.get<Record<string, unknown>>(["projects", ws.project.id]);
      await ctx.kv.set(["projects", ws.project.id], { ...project.value, name: "Renamed behind" });
      const res = await ctx.call("GET", "/trust/acme", { headers: { accept: BROWSER } });
      assert.doesNotMatch(await res.text(), /Renamed behind/);
      await ctx.kv.set(["projects", ws.project.id], project.value);
    },
  );

  await t.step(
    "a committed change is answered live until its render, then stored again",
    async () => {
      // The previous step's writes rendered first: what follows is the update's alone.
      await ctx.services.edge.render(orgId);
      await postUpdate(ctx, ws, "Planned maintenance tonight");
      const pending = await ctx.call("GET", "/trust/acme", { headers: { accept: BROWSER } });
      assert.match(await pending.text(), /Planned maintenance tonight/);
      assert.equal(
        pending.headers.get("surrogate-key"),
        `org-${orgId} project-${ws.project.id} project-${ws.project.id}-latest`,
      );
      const before = purges.received.length;
      const rendered = await ctx.services.edge.render(orgId);
      // Only the pages that show updates: the latest page, the updates and the feed, and the
      // trust center's page (open incidents); not the version's documents or the rest.
      assert.deepEqual(rendered.sort(), [
        `center-${orgId}-center`,
        `project-${ws.project.id}-feed`,
        `project-${ws.project.id}-latest`,
        `project-${ws.project.id}-updates`,
      ]);
      assert.equal(purges.received.length, before + rendered.length);
      const stored = await ctx.kv.get<{ body: Uint8Array }>(
        pageKey("/trust/acme", "html", "identity"),
      );
      assert.match(new TextDecoder().decode(stored.value!.body), /Planned maintenance tonight/);
      // Nothing changed since: a second run renders and purges nothing.
      assert.deepEqual(await ctx.services.edge.render(orgId), []);
      assert.equal(purges.received.length, before + rendered.length);
    },
  );

  await t.step(
    "the latest page says what is signed and when its live sections were current",
    async () => {
      const html = await (await ctx.call("GET", "/trust/acme", { headers: { accept: BROWSER } }))
        .text();
      assert.match(
        html,
        /This page is version 1, signed and immutable at\s+<a href="[^"]+\/versions\/1\/index\.html">its own address<\/a>/,
      );
      assert.match(html, /as of\s+<time datetime="[^"]+">\d+ \w{3} \d{4}, \d\d:\d\d UTC<\/time>/);
      assert.doesNotMatch(html, /this page never\s+change once published/);
      const version = await (await ctx.call("GET", "/trust/acme/versions/1/index.html")).text();
      assert.match(
        version,
        /Version 1 is immutable: its trust\.json, signature and this page never/,
      );
    },
  );

  await t.step(
    "versioned URLs are immutable at the edge, content-addressed and tagged",
    async () => {
      const res = await ctx.call("GET", "/trust/acme/versions/1/trust.json");
      assert.equal(res.headers.get("cache-control"), "public, max-age=31536000, immutable");
      assert.match(res.headers.get("deno-cache-id")!, /^sha256:[0-9a-f]{64}$/);
      assert.equal(res.headers.get("surrogate-key"), `org-${orgId} project-${ws.project.id}`);
      assert.equal(res.headers.get("cdn-cache-control"), null);
    },
  );

  await t.step("public answers no purge reaches are not kept by the platform's CDN", async () => {
    const res = await ctx.call("GET", "/public/frameworks");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cdn-cache-control"), "no-store");
    assert.equal(res.headers.get("deno-cdn-cache-control"), "no-store");
  });

  await t.step(
    "a project made private leaves no stored page; its URLs answer 404 live",
    async () => {
      const res = await ctx.call("PATCH", `/projects/${ws.project.id}`, {
        token: ws.token,
        json: { visibility: "private" },
      });
      assert.equal(res.status, 200);
      await ctx.services.edge.render(orgId);
      assert.equal((await ctx.kv.get(pageKey("/trust/acme", "html", "identity"))).value, null);
      assert.equal((await ctx.kv.get(pageKey("/trust/acme/trust.json", "any", "br"))).value, null);
      const gone = await ctx.call("GET", "/trust/acme/trust.json");
      assert.equal(gone.status, 404);
      assert.equal(gone.headers.get("surrogate-key"), null);
    },
  );
});

Deno.test("[edge] a render overtaken by a newer change stores nothing of it; the newer job does", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const orgId = ws.organization.id;
  // Bump the latest page's generation while it is being rendered: its first write fails.
  const fetch = ctx.app.fetch;
  let bumped = false;
  ctx.services.edge.attach(async (request, env) => {
    if (!bumped && new URL(request.url).pathname === "/trust/acme") {
      bumped = true;
      await postUpdate(ctx, ws, "Arrived during the render");
    }
    return await fetch(request, env);
  });
  await ctx.services.edge.render(orgId);
  // The render announces the paths it is about to write (what a deletion lists), but records
  // no render of the project: no generation rendered, no path stored.
  const latest = projectGroup("latest").id;
  const state = await ctx.kv.get<{ rendered: string; paths: string[]; writing?: string[] }>(
    scopeStateKey(orgId, ws.project.id, latest),
  );
  assert.equal(state.value?.rendered ?? "", "", "the overtaken render recorded no render");
  assert.deepEqual(state.value?.paths ?? [], [], "the overtaken render stored no path");
  assert.ok((state.value?.writing ?? []).includes("/trust/acme"), "its paths were announced");
  ctx.services.edge.attach((request, env) => fetch(request, env));
  await ctx.services.edge.render(orgId);
  const stored = await ctx.kv.get<{ body: Uint8Array }>(pageKey("/trust/acme", "html", "identity"));
  assert.match(new TextDecoder().decode(stored.value!.body), /Arrived during the render/);
  const generation = await ctx.kv.get(generationKey(orgId, ws.project.id, latest));
  assert.ok(generation.versionstamp);
  // The signed profile, which the update does not change, was stored by the first run.
  const version = await ctx.kv.get<{ rendered: string }>(
    scopeStateKey(orgId, ws.project.id, projectGroup("signed").id),
  );
  assert.ok(version.value?.rendered);
});

Deno.test("[edge] a purge that is not acknowledged fails the job, is shown, and is sent again", async () => {
  let status = 503;
  await using purges = purgeReceiver(() => status);
  await using ctx = await createTestApp({ env: { CDN_PURGE_URL: purges.url } });
  assert.equal(ctx.config.edge.purge, "xkey");
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  const orgId = ws.organization.id;
  await assert.rejects(() => ctx.services.edge.render(orgId), /answered 503/);
  // The first group stored (the signed profile) failed its purge, and the run stopped.
  const stateKey = scopeStateKey(orgId, ws.project.id, projectGroup("signed").id);
  const state = await ctx.kv.get<{ purged: boolean; purgeError: string }>(stateKey);
  assert.equal(state.value!.purged, false);
  assert.match(state.value!.purgeError, /answered 503/);
  const status503 = await (await ctx.call("GET", "/service/status", { token: ws.token })).json();
  assert.match(JSON.stringify(status503.live.edge), /answered 503/);
  status = 200;
  const tags = await ctx.services.edge.render(orgId);
  assert.equal(tags[0], `project-${ws.project.id}-signed`);
  assert.equal(purges.received.length, 1 + PROJECT_GROUPS.length + CENTER_GROUPS.length);
  const after = await ctx.kv.get<{ purged: boolean }>(stateKey);
  assert.equal(after.value!.purged, true);
});

Deno.test("[edge] without a purge driver nothing asks a CDN to keep pages longer than five minutes", async () => {
  await using ctx = await createTestApp();
  assert.equal(ctx.config.edge.purge, "none");
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  await ctx.services.edge.render(ws.organization.id);
  for (
    const path of ["/trust/acme", "/trust/acme/trust.json", "/trust/acme/versions/1/trust.json"]
  ) {
    const res = await ctx.call("GET", path);
    assert.equal(res.status, 200, path);
    for (const name of ["cdn-cache-control", "surrogate-key", "deno-cache-tag", "deno-cache-id"]) {
      assert.equal(res.headers.get(name), null, `${path} ${name}`);
    }
  }
});

Deno.test("[edge] a stored answer is kept in memory for a second, and dropped by any local change", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  await publishVersion(ctx, ws);
  await ctx.services.edge.render(ws.organization.id);
  const get = () => ctx.call("GET", "/trust/acme/badge.json");
  const first = await get();
  const body = await first.text();
  // The stored record is gone from KV: only memory explains the same answer now.
  await ctx.kv.delete(pageKey("/trust/acme/badge.json", "any", "identity"));
  const remembered = await get();
  assert.equal(await remembered.text(), body);
  const notModified = await ctx.call("GET", "/trust/acme/badge.json", {
    headers: { "if-none-match": first.headers.get("etag")! },
  });
  assert.equal(notModified.status, 304);
  // A change committed here stages its render: memory is dropped at once, the route answers.
  await postUpdate(ctx, ws, "Dropped from memory");
  await ctx.kv.set(
    ["projects", ws.project.id],
    (await ctx.kv.get(["projects", ws.project.id])).value,
  );
  const live = await get();
  assert.equal(live.status, 200);
  assert.equal(live.headers.get("etag"), first.headers.get("etag"), "the badge did not change");
  assert.equal(
    (await ctx.kv.get(pageKey("/trust/acme/badge.json", "any", "identity"))).value,
    null,
    "answered by the route, not from a record",
  );
  await live.body?.cancel();
});
