/**
 * The first screen tells the truth at a glance: an open incident or advisory is a banner at
 * the top of the latest page and the trust center (HTML and Markdown), in the profile JSON
 * (and so the MCP profile tool) and always in the Atom feed until resolved; the headline keeps
 * reported controls apart from those not reported; the trust center shows documents with the
 * access-request entry, open updates and the subscribe form.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import { team } from "../support/fixtures.ts";

async function post(ctx: TestApp, token: string, path: string, json: unknown) {
  const res = await ctx.call("POST", path, { token, json });
  assert.ok(res.status === 201 || res.status === 200, `${path}: ${res.status}`);
  return await res.json();
}

Deno.test("[http] an open incident or advisory is a banner until resolved", async (t) => {
  await using ctx = await createTestApp();
  const { owner, orgSlug, project } = await team(ctx);
  await post(ctx, owner, `/projects/${project.id}/publish`, undefined);
  const updates = `/projects/${project.id}/updates`;
  const { update: incident } = await post(ctx, owner, updates, {
    kind: "incident",
    title: "API errors in <eu-west>",
    body: "We are investigating.",
  });
  for (let i = 0; i < 55; i++) {
    ctx.clock.advance(1000);
    await post(ctx, owner, updates, { kind: "change", title: `Change ${i}`, body: "Done." });
  }

  await t.step("the latest page has it at the very top", async () => {
    const html = await (await ctx.call("GET", `/trust/${project.slug}.html`)).text();
    const banner = html.indexOf(
      '<section class="banner s-fail" aria-labelledby="live-banner-title">',
    );
    assert.ok(banner > 0, "the banner is there");
    assert.ok(banner > html.indexOf('<main id="main"'), "inside main");
    assert.ok(banner < html.indexOf('aria-labelledby="title"'), "before the headline");
    assert.match(html, /<h2 id="live-banner-title">.*Ongoing incident<\/h2>/s);
    assert.match(html, /API errors in &lt;eu-west&gt;/);
    assert.doesNotMatch(html, /<eu-west>/);
    const md = await (await ctx.call("GET", `/trust/${project.slug}.md`)).text();
    const lines = md.split("\n");
    assert.match(lines[0], /^# Acme Cloud: trust profile$/);
    assert.equal(lines[2], "> **Ongoing incident**");
    assert.match(
      lines[4],
      /^> - Incident: \[API errors in &lt;eu-west&gt;\]\(<http:\/\/trust\.test\/trust\/.*\/updates\/.*>\), since /,
    );
  });

  await t.step("the profile JSON (and MCP profile tool) carries it as openUpdates", async () => {
    const envelope = await (await ctx.call("GET", `/trust/${project.slug}`)).json();
    assert.deepEqual(envelope.openUpdates.map((u: { id: string }) => u.id), [incident.id]);
    assert.equal(envelope.openUpdates[0].resolvedAt, null);
  });

  await t.step("the feed keeps it however many updates came after it", async () => {
    const feed = await (await ctx.call("GET", `/trust/${project.slug}/feed.xml`)).text();
    assert.equal(
      (feed.match(/<entry>/g) ?? []).length,
      1 + 51,
      "version 1, the 50 newest, the incident",
    );
    assert.match(feed, /<title>Ongoing incident: API errors in &lt;eu-west&gt;<\/title>/);
  });

  await t.step(
    "the trust center shows it with its project, in HTML, Markdown and JSON",
    async () => {
      const json = await (await ctx.call("GET", `/public/trust/${orgSlug}`)).json();
      assert.equal(json.openUpdates.length, 1);
      assert.deepEqual(json.openUpdates[0].project, { slug: project.slug, name: "Acme Cloud" });
      const html = await (await ctx.call("GET", `/public/trust/${orgSlug}.html`)).text();
      const banner = html.indexOf('<section class="banner s-fail" aria-labelledby="banner-title">');
      assert.ok(banner > 0 && banner < html.indexOf('aria-labelledby="title"'));
      assert.match(html, /Incident · Acme Cloud:/);
      const md = await (await ctx.call("GET", `/public/trust/${orgSlug}.md`)).text();
      assert.match(md, /^> - Incident \(Acme Cloud\): \[API errors/m);
    },
  );

  await t.step("resolved, it leaves the banner and, being old, the feed", async () => {
    const res = await ctx.call("PATCH", `${updates}/${incident.id}`, {
      token: owner,
      json: { resolved: true },
    });
    assert.equal(res.status, 200);
    const html = await (await ctx.call("GET", `/trust/${project.slug}.html`)).text();
    assert.doesNotMatch(html, /class="banner/);
    const envelope = await (await ctx.call("GET", `/trust/${project.slug}`)).json();
    assert.deepEqual(envelope.openUpdates, []);
    const center = await (await ctx.call("GET", `/public/trust/${orgSlug}`)).json();
    assert.deepEqual(center.openUpdates, []);
    const feed = await (await ctx.call("GET", `/trust/${project.slug}/feed.xml`)).text();
    assert.doesNotMatch(feed, /Ongoing incident/, "older than the 50 newest, it leaves the feed");
    assert.equal((feed.match(/<entry>/g) ?? []).length, 1 + 50);
  });

  await t.step("an open advisory is a banner too; a change never is", async () => {
    const { update: advisory } = await post(ctx, owner, updates, {
      kind: "advisory",
      title: "Rotate your API keys",
      body: "Please rotate them.",
    });
    const html = await (await ctx.call("GET", `/trust/${project.slug}.html`)).text();
    assert.match(html, /<section class="banner s-degraded"/);
    assert.match(html, /Open advisory<\/h2>/);
    const envelope = await (await ctx.call("GET", `/trust/${project.slug}`)).json();
    assert.deepEqual(envelope.openUpdates.map((u: { id: string }) => u.id), [advisory.id]);
    await ctx.call("PATCH", `${updates}/${advisory.id}`, {
      token: owner,
      json: { kind: "change" },
    });
    const after = await (await ctx.call("GET", `/trust/${project.slug}`)).json();
    assert.deepEqual(after.openUpdates, [], "turned into a change, it is not open");
  });
});

Deno.test("[http] the headline keeps reported controls apart from those not reported", async () => {
  await using ctx = await createTestApp();
  const { owner, orgSlug, project } = await team(ctx);
  await post(ctx, owner, `/projects/${project.id}/publish`, undefined);
  const first = await (await ctx.call("GET", `/trust/${project.slug}.html`)).text();
  assert.match(first, /<p class="state">Not reported yet<\/p>/);
  assert.match(first, /<p class="why">None of 7 controls has reported yet<\/p>/);
  const created = await post(ctx, owner, `/projects/${project.id}/collectors`, { name: "ci" });
  const heartbeat = await ctx.call("POST", `/collectors/${created.collector.id}/heartbeat`, {
    json: { sourceRef: "ci" },
    headers: { authorization: `Bearer ${created.secret.value}` },
  });
  assert.equal(heartbeat.status, 200);
  await post(ctx, owner, `/projects/${project.id}/publish`, undefined);
  const html = await (await ctx.call("GET", `/trust/${project.slug}.html`)).text();
  // Every reported control passes: the page leads with that, and says what did not report.
  assert.match(html, /<p class="state">The 1 reported control passes<\/p>/);
  assert.match(html, /<p class="why">6 controls not reported yet · overall: unknown<\/p>/);
  assert.match(html, /Not reported: no usable evidence has been received yet/);
  const md = await (await ctx.call("GET", `/trust/${project.slug}.md`)).text();
  assert.match(md, /- Controls: 7 \(1 pass, 6 not reported\)/);
  const center = await (await ctx.call("GET", `/public/trust/${orgSlug}.html`)).text();
  assert.match(center, /1 of 1 reported control passes · 6 not reported · Version 2/);
});

Deno.test("[http] the trust center shows documents with the access-request entry and the form", async (t) => {
  await using ctx = await createTestApp({ env: { SMTP_URL: "smtp://127.0.0.1:2525" } });
  const { owner, orgId, orgSlug, project } = await team(ctx);
  await post(ctx, owner, `/projects/${project.id}/publish`, undefined);
  for (const [title, visibility] of [["Security policy", "public"], ["Pen test", "restricted"]]) {
    const res = await upload(ctx, orgId, {
      token: owner,
      bytes: await makePdf(title),
      query: `title=${encodeURIComponent(title)}&visibility=${visibility}`,
    });
    assert.equal(res.status, 201);
  }
  const center = `http://trust.test/public/trust/${orgSlug}`;

  await t.step("without an NDA: listed, not requestable yet", async () => {
    const json = await (await ctx.call("GET", `/public/trust/${orgSlug}`)).json();
    assert.deepEqual(json.documents.map((d: { title: string }) => d.title), [
      "Pen test",
      "Security policy",
    ]);
    assert.equal(json.acceptingRequests, false);
    assert.equal(json.accessRequestUrl, null);
    assert.equal(json.documentsUrl, `${center}/documents`);
    const html = await (await ctx.call("GET", `/public/trust/${orgSlug}.html`)).text();
    assert.match(html, /<h2 id="documents-title">Documents<\/h2>/);
    assert.match(html, /Restricted documents cannot be requested yet\./);
    assert.match(html, /Download<span class="vh"> Security policy<\/span>/);
  });

  await t.step("with an NDA: the access-request entry", async () => {
    const res = await ctx.call("PUT", `/organizations/${orgId}/nda`, {
      token: owner,
      json: { text: "Confidential." },
    });
    assert.equal(res.status, 200);
    const json = await (await ctx.call("GET", `/public/trust/${orgSlug}`)).json();
    assert.equal(json.acceptingRequests, true);
    assert.equal(json.accessRequestUrl, `${center}/documents/request`);
    const page = await ctx.call("GET", `/public/trust/${orgSlug}.html`);
    const html = await page.text();
    assert.match(
      html,
      new RegExp(`<a href="${center}/documents/request">Request restricted documents</a>`),
    );
    assert.match(html, /Request access<span class="vh"> to Pen test<\/span>/);
    assert.match(html, /<h2 id="subscribe-title">Email updates<\/h2>/, "the subscribe form");
    const csp = page.headers.get("content-security-policy") ?? "";
    assert.match(csp, /form-action http:\/\/trust\.test/);
    const md = await (await ctx.call("GET", `/public/trust/${orgSlug}.md`)).text();
    assert.match(md, /## Documents/);
    assert.match(md, /- \*\*Pen test\*\*: \[Request access\]/);
    assert.match(
      md,
      /\[Request restricted documents\]\(<http:\/\/trust\.test\/public\/trust\/.*\/documents\/request>\)/,
    );
  });
});
