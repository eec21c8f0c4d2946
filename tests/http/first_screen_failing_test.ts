/**
 * The first screen answers the buyer's first question (issue 35): with a failing control, the
 * latest trust page (HTML and Markdown) says at its top which control fails, since which
 * published version, and why, linking to the control's row; a control that passes again
 * leaves it; a page with nothing failing has no such section.
 */
import assert from "node:assert/strict";
import { createTestApp, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, publishVersion, workspace } from "../support/fixtures.ts";

async function send(ctx: TestApp, secret: string, body: unknown) {
  const res = await ctx.call("POST", "/ingest/evidence", {
    headers: { authorization: `Bearer ${secret}` },
    json: body,
  });
  assert.ok(res.status === 200 || res.status === 201, await res.clone().text());
  await res.body?.cancel();
}

const scan = (ctx: TestApp, critical: number) =>
  evidenceItem(ctx, { summary: { critical, high: 0, medium: 1 } }, {
    evidenceType: "vulnerability_scan",
    minutesAgo: 5,
  });

Deno.test("[http] the first screen says what fails, since which version and why", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  const projectId = ws.project.id;
  await send(ctx, secret, { projectId, ...scan(ctx, 0) });
  assert.equal(await publishVersion(ctx, ws), 1);
  const passing = await (await ctx.call("GET", "/trust/acme.html")).text();
  assert.doesNotMatch(passing, /live-failing-title/);

  ctx.clock.advance(60_000);
  await send(ctx, secret, { projectId, ...scan(ctx, 2) });
  assert.equal(await publishVersion(ctx, ws), 2);
  ctx.clock.advance(60_000);
  await send(ctx, secret, { projectId, ...scan(ctx, 3) });
  assert.equal(await publishVersion(ctx, ws), 3);

  const profile = await (await ctx.call("GET", "/trust/acme/trust.json")).json();
  const failing = profile.controls.find((c: { state: string }) => c.state === "fail");
  assert.ok(failing, "a control fails");
  const v2 = (await (await ctx.call("GET", "/trust/acme/versions")).json()).versions
    .find((v: { version: number }) => v.version === 2);

  const html = await (await ctx.call("GET", "/trust/acme.html")).text();
  const section = html.slice(html.indexOf('<section class="failing'));
  assert.ok(html.indexOf('<section class="failing') > 0);
  // Above the vendor card and the headline, within the page's main.
  assert.ok(html.indexOf('<section class="failing') < html.indexOf('<h1 id="title"'));
  assert.match(section, /<h2 id="live-failing-title">.*1 control fails<\/h2>/s);
  assert.ok(section.includes(`<a href="#control-${failing.key}">${failing.name}</a>`));
  assert.ok(html.includes(`<tr id="control-${failing.key}">`), "the link reaches the row");
  // Since version 2 (the first of the run), not 3.
  assert.match(section, /Failing since version 2, published <time datetime="([^"]+)"/);
  const since = /Failing since version 2, published <time datetime="([^"]+)"/.exec(section)![1];
  assert.equal(Date.parse(since), Date.parse(v2.publishedAt));
  const why = failing.reason.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  assert.ok(section.includes(`Why: ${why}`), "the evaluator's reason");

  const md = await (await ctx.call("GET", "/trust/acme.md")).text();
  assert.match(md, /^> \*\*1 control fails\*\*$/m);
  assert.ok(md.indexOf("1 control fails") < md.indexOf("## "), "before the first section");
  assert.match(
    md,
    new RegExp(`#control-${failing.key.replace(/\./g, "\\.")}>\\), failing since version 2`),
  );

  // Passing again: the section is gone.
  ctx.clock.advance(60_000);
  await send(ctx, secret, { projectId, ...scan(ctx, 0) });
  assert.equal(await publishVersion(ctx, ws), 4);
  const fixed = await (await ctx.call("GET", "/trust/acme.html")).text();
  assert.doesNotMatch(fixed, /live-failing-title/);
});
