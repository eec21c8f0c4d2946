import assert from "node:assert/strict";
import type { TrustEvent } from "../../src/domain/events.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { publishVersion, type Workspace, workspace } from "../support/fixtures.ts";
import { assertWellFormedXml } from "../publish/render/_xml.ts";
import { HOSTILE_MARKDOWN, renderAsReader, unsafeHtml } from "../support/safe_html.ts";

async function team(ctx: TestApp) {
  const ws = await workspace(ctx, "owner", { projectSlug: "acme", visibility: "public" });
  const member = await ctx.tokenFor("member", { email: "member@acme.test" });
  const stranger = await ctx.tokenFor("stranger");
  const invited = await ctx.call("POST", `/organizations/${ws.organization.id}/invitations`, {
    token: ws.token,
    json: { email: "member@acme.test", role: "member" },
  });
  const token = new URL((await invited.json()).acceptUrl).hash.slice("#invitation=".length);
  assert.equal(
    (await ctx.call("POST", `/invitations/${token}/accept`, { token: member })).status,
    200,
  );
  assert.equal((await ctx.call("GET", "/me", { token: stranger })).status, 200);
  return { ws, member, stranger };
}

const HOSTILE = [
  "# Heading",
  "<script>alert(1)</script> <img src=x onerror=alert(2)>",
  "[js](javascript:alert(3)) [JS](JAVASCRIPT:alert(4)) [data](data:text/html,<b>x</b>)",
  "![tracker](https://evil.example/pixel.png) <https://ok.example/a> mailto:sec@acme.test",
  "&lt;b&gt; &amp; [fine](https://status.acme.test)",
].join("\n\n");

function post(ctx: TestApp, ws: Workspace, token: string, json: unknown) {
  return ctx.call("POST", `/projects/${ws.project.id}/updates`, { token, json });
}

Deno.test("[http] updates: members post, edit, resolve and delete; others are refused", async (t) => {
  await using ctx = await createTestApp();
  const { ws, member, stranger } = await team(ctx);
  const path = `/projects/${ws.project.id}/updates`;
  let id = "";

  await t.step("a member posts; the list is newest first and paginated", async () => {
    const res = await post(ctx, ws, member, {
      kind: "incident",
      title: "  API errors  ",
      body: "Investigating.",
    });
    assert.equal(res.status, 201);
    const { update } = await res.json();
    assert.equal(update.title, "API errors");
    assert.equal(update.resolvedAt, null);
    assert.equal(update.postedBy.email, "member@acme.test");
    id = update.id;
    for (const kind of ["advisory", "change"]) {
      ctx.clock.advance(1000);
      const made = await post(ctx, ws, ws.token, { kind, title: kind, body: "x" });
      assert.equal(made.status, 201);
    }
    const first = await (await ctx.call("GET", `${path}?limit=2`, { token: member })).json();
    assert.deepEqual(first.updates.map((u: { kind: string }) => u.kind), ["change", "advisory"]);
    assert.ok(first.nextCursor);
    const rest = await (await ctx.call("GET", `${path}?limit=2&cursor=${first.nextCursor}`, {
      token: member,
    })).json();
    assert.deepEqual(rest.updates.map((u: { id: string }) => u.id), [id]);
    assert.equal(rest.nextCursor, null);
  });

  await t.step("refusals and bad input change nothing", async () => {
    const item = `${path}/${id}`;
    const ok = { kind: "change", title: "t", body: "b" };
    const before = await snapshotKv(ctx.kv);
    const attempts: [string, string, string, unknown, number][] = [
      ["GET", path, "", undefined, 401],
      ["GET", path, stranger, undefined, 403],
      ["GET", `${path}?cursor=bogus`, member, undefined, 400],
      ["GET", `${path}?limit=0`, member, undefined, 400],
      ["POST", path, "", ok, 401],
      ["POST", path, stranger, ok, 403],
      ["POST", `/projects/${crypto.randomUUID()}/updates`, ws.token, ok, 403],
      ["POST", path, member, { ...ok, kind: "outage" }, 400],
      ["POST", path, member, { ...ok, title: "" }, 400],
      ["POST", path, member, { ...ok, title: "two\nlines" }, 400],
      ["POST", path, member, { ...ok, title: "x".repeat(201) }, 400],
      ["POST", path, member, { ...ok, body: "   " }, 400],
      ["POST", path, member, { ...ok, body: "x".repeat(20_001) }, 400],
      ["POST", path, member, { ...ok, body: "bell\u0007" }, 400],
      ["POST", path, member, { ...ok, extra: 1 }, 400],
      ["POST", path, member, [ok], 400],
      ["PATCH", item, "", { resolved: true }, 401],
      ["PATCH", item, stranger, { resolved: true }, 403],
      ["PATCH", item, member, {}, 400],
      ["PATCH", item, member, { resolved: "yes" }, 400],
      ["PATCH", `${path}/${crypto.randomUUID()}`, member, { resolved: true }, 404],
      ["PATCH", `${path}/nope`, member, { resolved: true }, 400],
      ["DELETE", item, "", undefined, 401],
      ["DELETE", item, stranger, undefined, 403],
      ["DELETE", `${path}/${crypto.randomUUID()}`, member, undefined, 404],
    ];
    for (const [method, url, token, json, status] of attempts) {
      const res = await ctx.call(method, url, { token: token || undefined, json });
      assert.equal(res.status, status, `${method} ${url} ${JSON.stringify(json)}`);
      assert.ok((await res.json()).error.message);
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("edits keep who posted; resolve and reopen", async () => {
    ctx.clock.advance(60_000);
    const edited = await ctx.call("PATCH", `${path}/${id}`, {
      token: ws.token,
      json: { body: "Fixed the load balancer.", resolved: true },
    });
    assert.equal(edited.status, 200);
    const { update } = await edited.json();
    assert.equal(update.postedBy.email, "member@acme.test");
    assert.notEqual(update.updatedBy.userId, update.postedBy.userId);
    assert.ok(update.resolvedAt > update.postedAt);
    const same = await ctx.call("PATCH", `${path}/${id}`, {
      token: member,
      json: { resolved: true },
    });
    assert.equal((await same.json()).update.updatedAt, update.updatedAt, "no change, no save");
    const reopened = await ctx.call("PATCH", `${path}/${id}`, {
      token: member,
      json: { resolved: false },
    });
    assert.equal((await reopened.json()).update.resolvedAt, null);
  });

  await t.step("delete removes it from the list", async () => {
    assert.equal((await ctx.call("DELETE", `${path}/${id}`, { token: member })).status, 200);
    assert.equal((await ctx.call("DELETE", `${path}/${id}`, { token: member })).status, 404);
    const { updates } = await (await ctx.call("GET", path, { token: member })).json();
    assert.deepEqual(updates.map((u: { kind: string }) => u.kind), ["change", "advisory"]);
  });
});

Deno.test("[http] updates: public pages, trust page and feed render hostile Markdown safely", async (t) => {
  await using ctx = await createTestApp();
  const { ws } = await team(ctx);
  await publishVersion(ctx, ws);
  ctx.clock.advance(1000);
  const incident = await (await post(ctx, ws, ws.token, {
    kind: "incident",
    title: "<b>Outage</b> & more",
    body: HOSTILE,
  })).json();
  ctx.clock.advance(1000);
  await post(ctx, ws, ws.token, { kind: "change", title: "New region", body: "Now in *eu*." });

  await t.step("JSON, HTML and Markdown lists; one update's page", async () => {
    const list = await (await ctx.call("GET", "/trust/acme/updates")).json();
    assert.deepEqual(list.updates.map((u: { title: string }) => u.title), [
      "New region",
      "<b>Outage</b> & more",
    ]);
    const html = list.updates[1].bodyHtml as string;
    assert.ok(!/<(script|img|iframe)/i.test(html), html);
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(hrefs, [
      "https://ok.example/a",
      "mailto:sec@acme.test",
      "https://status.acme.test",
    ]);
    assert.ok(!/<[a-z][^>]*onerror/i.test(html));
    assert.match(
      html,
      /<a href="https:\/\/status\.acme\.test" rel="nofollow noopener noreferrer">/,
    );
    assert.match(html, /<a href="mailto:sec@acme\.test" rel="nofollow noopener noreferrer">/);
    assert.match(html, /&lt;script&gt;/);
    assert.match(html, /\[tracker\]/);
    assert.match(html, /<h3>Heading<\/h3>/);
    const page = await ctx.call("GET", "/trust/acme/updates.html");
    assert.equal(page.status, 200);
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/);
    assert.doesNotMatch(csp, /img-src/);
    const text = await page.text();
    assert.ok(text.includes("&lt;b&gt;Outage&lt;/b&gt; &amp; more"));
    assert.ok(!text.includes("<script"));
    const md = await (await ctx.call("GET", "/trust/acme/updates.md")).text();
    assert.match(md, /^## New region/m);
    assert.match(md, /^> # Heading/m, "the body is quoted");
    const one = await ctx.call("GET", `/trust/acme/updates/${incident.update.id}.html`);
    assert.equal(one.status, 200);
    assert.match(await one.text(), /Ongoing/);
    const json = await (await ctx.call("GET", `/trust/acme/updates/${incident.update.id}`)).json();
    assert.equal(json.update.postedBy, undefined, "authors are not public");
    assert.equal((await ctx.call("GET", "/trust/acme/updates/nope")).status, 404);
    assert.equal((await ctx.call("GET", `/trust/nope/updates`)).status, 404);
  });

  await t.step("the trust page shows ongoing incidents first, under its CSP", async () => {
    const page = await ctx.call("GET", "/trust/acme.html");
    const text = await page.text();
    const live = text.slice(text.indexOf('data-live="true"'));
    assert.ok(live.indexOf("Outage") < live.indexOf("New region"), "the open incident first");
    assert.match(live, /1 ongoing incident\./);
    const csp = page.headers.get("content-security-policy") ?? "";
    const styles = [...text.matchAll(/<style>([\s\S]*?)<\/style>/g)].length;
    assert.equal((csp.match(/'sha256-/g) ?? []).length, styles, "every stylesheet by hash");
    const md = await (await ctx.call("GET", "/trust/acme.md")).text();
    assert.match(md, /## Updates/);
  });

  await t.step(
    "the feed merges updates, stays well-formed and ordered, and keeps 304",
    async () => {
      const first = await ctx.call("GET", "/trust/acme/feed.xml");
      const xml = await first.text();
      assertWellFormedXml(xml);
      const updated = [...xml.matchAll(/<entry>[\s\S]*?<updated>([^<]+)<\/updated>/g)]
        .map((m) => Date.parse(m[1]));
      assert.equal(updated.length, 3);
      assert.deepEqual(updated, [...updated].sort((a, b) => b - a));
      assert.equal(xml.match(/<feed[^>]*>\s*<id>/) !== null, true);
      const feedUpdated = Date.parse(xml.match(/<updated>([^<]+)<\/updated>/)![1]);
      assert.equal(feedUpdated, updated[0]);
      assert.ok(!xml.includes("<script"), "bodies are escaped inside the feed");
      const etag = first.headers.get("etag")!;
      const again = await ctx.call("GET", "/trust/acme/feed.xml", {
        headers: { "if-none-match": etag },
      });
      assert.equal(again.status, 304);
      ctx.clock.advance(5000);
      await ctx.call("PATCH", `/projects/${ws.project.id}/updates/${incident.update.id}`, {
        token: ws.token,
        json: { resolved: true },
      });
      const after = await ctx.call("GET", "/trust/acme/feed.xml", {
        headers: { "if-none-match": etag },
      });
      assert.equal(after.status, 200, "resolving changes the feed");
      const resolved = await after.text();
      assert.match(
        resolved.split("<entry>")[1],
        /Incident: &lt;b&gt;Outage&lt;\/b&gt; &amp;amp; more \(resolved\)|Incident: &lt;b&gt;Outage&lt;\/b&gt; &amp; more \(resolved\)/,
      );
    },
  );
});

Deno.test("[http] updates: the Markdown pages and the public body are as safe as the HTML pages", async (t) => {
  await using ctx = await createTestApp();
  const { ws } = await team(ctx);
  await publishVersion(ctx, ws);
  const body = [HOSTILE, ...HOSTILE_MARKDOWN].join("\n\n");
  const posted = await post(ctx, ws, ws.token, { kind: "incident", title: "Outage", body });
  assert.equal(posted.status, 201);
  const { update } = await posted.json();
  const markdownPages = [
    "/trust/acme.md",
    "/trust/acme/updates.md",
    `/trust/acme/updates/${update.id}.md`,
  ];
  for (const path of markdownPages) {
    await t.step(`${path}, rendered with raw HTML allowed`, async () => {
      const res = await ctx.call("GET", path);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /^text\/markdown/);
      const html = renderAsReader(await res.text());
      assert.deepEqual(unsafeHtml(html), []);
      assert.doesNotMatch(html, /<(script|img|iframe|svg|style|details)\b/i);
      assert.doesNotMatch(html, /href="(javascript|data):/i);
      assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, "raw HTML shows as text");
      assert.match(html, /<a href="https:\/\/status\.acme\.test">fine<\/a>/, "safe links stay");
    });
  }
  await t.step("the public JSON body (also the MCP tool's) is the same safe Markdown", async () => {
    const list = await (await ctx.call("GET", "/trust/acme/updates")).json();
    const html = renderAsReader(list.updates[0].body);
    assert.deepEqual(unsafeHtml(html), []);
    const one = await (await ctx.call("GET", `/trust/acme/updates/${update.id}`)).json();
    assert.equal(one.update.body, list.updates[0].body);
    const source = await (await ctx.call("GET", `/projects/${ws.project.id}/updates`, {
      token: ws.token,
    })).json();
    assert.equal(source.updates[0].body, body, "members still read and edit the source");
  });
});

Deno.test("[http] posting an update stages update.posted with the change; edits raise none", async () => {
  await using ctx = await createTestApp({ worker: true });
  const seen: TrustEvent[] = [];
  const got = Promise.withResolvers<void>();
  ctx.services.events.subscribe("test", (event) => {
    if (event.type === "update.posted") {
      seen.push(event);
      got.resolve();
    }
    return Promise.resolve();
  });
  const { ws } = await team(ctx);
  const res = await post(ctx, ws, ws.token, { kind: "advisory", title: "Rotate keys", body: "b" });
  const { update } = await res.json();
  const timer = setTimeout(() => got.reject(new Error("no update.posted event")), 10_000);
  await got.promise.finally(() => clearTimeout(timer));
  await ctx.call("PATCH", `/projects/${ws.project.id}/updates/${update.id}`, {
    token: ws.token,
    json: { resolved: true },
  });
  await post(ctx, ws, ws.token, { kind: "nope", title: "x", body: "b" });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(seen.length, 1);
  const [event] = seen;
  assert.equal(event.projectId, ws.project.id);
  assert.equal(event.organizationId, ws.organization.id);
  assert.equal(event.timestamp, update.postedAt);
  assert.deepEqual(event.data, {
    project: { id: ws.project.id, slug: "acme", name: "owner project" },
    update: {
      id: update.id,
      kind: "advisory",
      title: "Rotate keys",
      url: `${ctx.services.config.baseUrl}/trust/acme/updates/${update.id}`,
      postedAt: update.postedAt,
      resolvedAt: null,
    },
  });
});
